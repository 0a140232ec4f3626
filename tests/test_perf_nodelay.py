"""rift's own sockets send at once: TCP_NODELAY is set whatever the server does.

The fake server is a stdlib HTTPServer, which leaves Nagle's algorithm on; the
option is checked on the very socket a request went out on (asyncio sets it on
its transports already; `make_client` names it so no transport can drop it),
together with the keepalive rift relies on for long prefills. Both transports:
plain http (wire.py) and the httpx one, reached here through a proxy setting
(httpx then connects directly, as rift's httpx client always has). Not a timing.
"""

from __future__ import annotations

import asyncio
import socket

import pytest
from fakes.fake_server import FakeModelServer

from rift.models.http import make_client


async def _socket_options(url: str) -> tuple[int, int, int]:
    client = make_client(read_timeout=10, tls=False)
    try:
        response = await client.send(client.build_request("GET", f"{url}/api/tags"))
        sock = response.get_extra_info("socket")
        nodelay = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        keepalive = sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE)
        idle = sock.getsockopt(socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPIDLE", 0))
        await response.aread()
        await response.aclose()
    finally:
        await client.aclose()
    return nodelay, keepalive, idle


@pytest.mark.parametrize("proxied", [False, True], ids=["wire", "httpx"])
def test_client_sockets_have_nodelay_and_keepalive(
    proxied: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    if proxied:
        monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    else:
        monkeypatch.delenv("http_proxy", raising=False)
        monkeypatch.delenv("HTTP_PROXY", raising=False)
        monkeypatch.delenv("all_proxy", raising=False)
        monkeypatch.delenv("ALL_PROXY", raising=False)
    with FakeModelServer({}) as fake:
        nodelay, keepalive, idle = asyncio.run(_socket_options(fake.url))
    assert nodelay != 0
    assert keepalive != 0
    if hasattr(socket, "TCP_KEEPIDLE"):
        assert idle == 20

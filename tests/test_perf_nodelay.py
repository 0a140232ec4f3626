"""rift's own sockets send at once: TCP_NODELAY is set whatever the server does.

The fake server is a stdlib HTTPServer, which leaves Nagle's algorithm on; the
option is checked on the very socket a request went out on (asyncio sets it on
its transports already; `make_client` names it so no backend can drop it),
together with the keepalive rift relies on for long prefills. Not a timing.
"""

from __future__ import annotations

import asyncio
import socket

from rift.models.http import make_client
from rift.testing.fake_server import FakeModelServer


async def _socket_options(url: str) -> tuple[int, int]:
    client = make_client(read_timeout=10, tls=False)
    try:
        async with client.stream("GET", f"{url}/api/tags") as response:
            stream = response.extensions["network_stream"]
            sock = stream.get_extra_info("socket")
            nodelay = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
            keepalive = sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE)
            await response.aread()
    finally:
        await client.aclose()
    return nodelay, keepalive


def test_client_sockets_have_nodelay_and_keepalive() -> None:
    with FakeModelServer({}) as fake:
        nodelay, keepalive = asyncio.run(_socket_options(fake.url))
    assert nodelay != 0
    assert keepalive != 0

"""A server's bodies are read with a cap (issue 42): a 256 MiB error body or model list
took `rift -p` to 1.8 GiB, and a `/props` naming 10,000,000 slots cost 488 MiB."""

from __future__ import annotations

import asyncio
import socket
import threading
import tracemalloc
from collections.abc import Iterator

import pytest

from rift.errors import ServerHTTPError, StreamError
from rift.models.http import make_client, request_json
from rift.models.server_info import parse_props

HUGE = 128 * 1024 * 1024
CHUNK = b"x" * 65536


def _serve(sock: socket.socket, status: str) -> None:
    """Answer each connection with `status` and a HUGE body, written until the client
    hangs up: a hostile or broken server, no fake in between."""
    while True:
        try:
            conn, _ = sock.accept()
        except OSError:
            return
        with conn:
            conn.recv(65536)
            head = f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
            conn.sendall(f"{head}Content-Length: {HUGE}\r\n\r\n".encode())
            try:
                for _ in range(HUGE // len(CHUNK)):
                    conn.sendall(CHUNK)
            except OSError:
                continue


@pytest.fixture(params=["200 OK", "500 Internal Server Error"])
def huge_server(request: pytest.FixtureRequest) -> Iterator[str]:
    sock = socket.create_server(("127.0.0.1", 0))
    thread = threading.Thread(target=_serve, args=(sock, request.param), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()


async def _ask(url: str) -> None:
    async with make_client(30.0) as client:
        await request_json(client, "GET", f"{url}/v1/models", backoff=())


def test_unbounded_response_body_is_read_with_a_cap(huge_server: str) -> None:
    tracemalloc.start()
    try:
        with pytest.raises((StreamError, ServerHTTPError)) as caught:
            asyncio.run(_ask(huge_server))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 24 * 1024 * 1024, f"peak {peak >> 20} MiB reading a {HUGE >> 20} MiB body"
    assert len(str(caught.value)) < 1000  # one short line, not the body


def test_a_props_naming_ten_million_slots_is_clamped() -> None:
    props = parse_props({"default_generation_settings": {"n_ctx": 8192}, "total_slots": 10**7})
    assert props is not None
    assert props.total_slots is not None and props.total_slots <= 64

"""rift's plain-http client (models/wire.py under models/http.py) against real servers.

Each edge case gets a small asyncio server on 127.0.0.1 written here: h11 reads the
requests (server side), the answers are raw bytes, so a test controls the framing
exactly (chunked, Content-Length, close-delimited, broken off, silent) and counts
the connections it accepted.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine
from types import TracebackType
from typing import Any, TypeVar

import h11
import pytest
from fakes.fake_server import FakeModelServer

from rift.errors import ReadIdleTimeout, ServerHTTPError, ServerUnreachable, StreamError
from rift.models.http import (
    Client,
    drain,
    iter_lines,
    json_request,
    make_client,
    request_json,
    send_with_retry,
)
from rift.models.transport import Request
from rift.models.wire import WirePool

pytestmark = pytest.mark.timeout(30)
T = TypeVar("T")
Handler = Callable[["Exchange"], Awaitable[None]]
NO_BACKOFF: tuple[float, ...] = ()


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


class Exchange:
    """One accepted connection: read requests with h11, write raw answers."""

    def __init__(
        self, server: Server, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.server = server
        self.reader = reader
        self.writer = writer
        self.h11 = h11.Connection(h11.SERVER)

    async def request(self) -> tuple[h11.Request, bytes] | None:
        """The next request and its body; None when the client closed the connection."""
        if self.h11.our_state is h11.DONE:
            self.h11.start_next_cycle()
        head: h11.Request | None = None
        body = b""
        while True:
            event = self.h11.next_event()
            if event is h11.NEED_DATA:
                self.h11.receive_data(await self.reader.read(65536))
            elif isinstance(event, h11.Request):
                head = event
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                assert head is not None
                self.server.requests.append((head, body))
                return head, body
            else:
                return None

    async def answer(self, raw: bytes) -> None:
        """Send raw bytes as the answer; h11 is told a whole response went out."""
        self.h11.send(h11.Response(status_code=200, headers=[("Content-Length", "0")]))
        self.h11.send(h11.EndOfMessage())
        self.writer.write(raw)
        await self.writer.drain()


class Server:
    """An asyncio server on 127.0.0.1 running `handler` for every connection."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.accepted = 0
        self.requests: list[tuple[h11.Request, bytes]] = []
        """Every request read, with its body, in arrival order."""
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Server:
        self._server = await asyncio.start_server(self._on_connect, "127.0.0.1", 0)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.close()

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        try:
            await self.handler(Exchange(self, reader, writer))
        except (ConnectionError, h11.ProtocolError):
            pass
        finally:
            writer.close()


def chunked(*pieces: bytes, end: bool = True) -> bytes:
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    body = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces)
    return head + body + (b"0\r\n\r\n" if end else b"")


def sized(body: bytes, status: bytes = b"200 OK", extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 %s\r\nContent-Length: %d\r\n%s\r\n%s" % (status, len(body), extra, body)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def lines_of(
    client: Client, url: str, *, backoff: tuple[float, ...] = NO_BACKOFF
) -> list[str]:
    request = json_request(client, "POST", url, {"q": 1})
    response = await send_with_retry(client, request, backoff=backoff)
    try:
        return [line async for line in iter_lines(response)]
    finally:
        await response.aclose()


def serve_each(answer: bytes) -> Handler:
    """A handler that answers every request on the connection with `answer`."""

    async def handle(ex: Exchange) -> None:
        while await ex.request() is not None:
            await ex.answer(answer)

    return handle


# ------------------------------------------------------------------ bodies


def test_chunked_body_lines_and_a_final_line_without_newline() -> None:
    async def go() -> list[str]:
        answer = chunked(b'{"a":1}\n{"b"', b':2}\n\n{"c":3}')
        async with Server(serve_each(answer)) as server, make_client(5) as client:
            return await lines_of(client, server.url)

    assert run(go()) == ['{"a":1}', '{"b":2}', '{"c":3}']


def test_content_length_body() -> None:
    async def go() -> Any:
        answer = sized(b'{"models": [{"name": "m"}]}', extra=b"Content-Type: application/json\r\n")
        async with Server(serve_each(answer)) as server, make_client(5) as client:
            return await request_json(client, "GET", f"{server.url}/api/tags")

    assert run(go()) == {"models": [{"name": "m"}]}


def test_close_delimited_body_is_read_to_the_end() -> None:
    async def handle(ex: Exchange) -> None:
        await ex.request()
        await ex.answer(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nline one\nline two")

    async def go() -> tuple[list[str], list[str], int]:
        async with Server(handle) as server, make_client(5) as client:
            first = await lines_of(client, server.url)
            second = await lines_of(client, server.url)  # a new connection: the last one closed
            return first, second, server.accepted

    first, second, accepted = run(go())
    assert first == second == ["line one", "line two"]
    assert accepted == 2


def test_request_shape_host_length_and_json_body() -> None:
    async def go() -> tuple[str, list[tuple[h11.Request, bytes]]]:
        server = Server(serve_each(sized(b"{}")))
        async with server, make_client(5, headers={"X-K": "v"}) as client:
            await request_json(client, "POST", f"{server.url}/api/show?x=1", json_body={"m": "é"})
            await request_json(client, "GET", f"{server.url}/api/tags")
            return server.url, server.requests

    url, requests = run(go())
    (post, body), (get, get_body) = requests
    headers = {k.decode(): v.decode() for k, v in post.headers}
    assert post.method == b"POST" and post.target == b"/api/show?x=1"
    assert headers["host"] == url.removeprefix("http://")
    assert headers["content-type"] == "application/json"
    assert headers["x-k"] == "v" and headers["user-agent"].startswith("rift/")
    assert headers["accept-encoding"] == "identity"
    assert int(headers["content-length"]) == len(body)
    assert json.loads(body) == {"m": "é"}
    assert get.method == b"GET" and get_body == b""
    assert b"content-length" not in dict(get.headers)


def test_lone_surrogate_becomes_an_escape_not_an_encoding_error() -> None:
    client = make_client(5)
    request = json_request(client, "POST", "http://127.0.0.1:1/x", {"t": "a\ud800b"})
    assert request.content == b'{"t":"a\\ud800b"}'


# ------------------------------------------------------------------ keep-alive


def test_keep_alive_several_requests_over_one_connection() -> None:
    async def go() -> tuple[int, int]:
        answer = chunked(b'{"n":1}\n')
        async with Server(serve_each(answer)) as server, make_client(5) as client:
            for _ in range(4):
                assert await lines_of(client, server.url) == ['{"n":1}']
            return server.accepted, len(server.requests)

    assert run(go()) == (1, 4)


def test_drained_stream_keeps_the_connection() -> None:
    async def go() -> int:
        answer = chunked(b'{"done":true}\n', b'{"extra":1}\n')
        async with Server(serve_each(answer)) as server, make_client(5) as client:
            for _ in range(3):
                request = json_request(client, "POST", server.url, {})
                response = await send_with_retry(client, request)
                lines = iter_lines(response)
                async for _line in lines:
                    await drain(lines)
                    break
                await response.aclose()
            return server.accepted

    assert run(go()) == 1


def test_closing_before_the_body_ends_drops_the_connection() -> None:
    async def go() -> int:
        answer = chunked(b'{"a":1}\n', b'{"b":2}\n')
        async with Server(serve_each(answer)) as server, make_client(5) as client:
            for _ in range(2):
                request = json_request(client, "POST", server.url, {})
                response = await send_with_retry(client, request)
                await response.aclose()
            return server.accepted

    assert run(go()) == 2


def test_server_closing_a_pooled_connection_is_retried_transparently() -> None:
    """The server answers one request per connection and then closes it *without*
    saying so (no `Connection: close`): the next request finds a dead pooled socket."""

    async def handle(ex: Exchange) -> None:
        await ex.request()
        await ex.answer(sized(b'{"ok":1}'))
        await asyncio.sleep(0.05)

    async def go() -> tuple[list[Any], int]:
        async with Server(handle) as server, make_client(5) as client:
            answers = []
            for _ in range(3):
                answers.append(await request_json(client, "GET", server.url, backoff=NO_BACKOFF))
                await asyncio.sleep(0.2)  # the server has closed it meanwhile
            return answers, server.accepted

    answers, accepted = run(go())
    assert answers == [{"ok": 1}] * 3
    assert accepted == 3


def test_server_closing_as_the_request_goes_out_is_retried_on_a_fresh_connection() -> None:
    """Closed the moment the next request arrives (the race a pre-check cannot see)."""

    async def handle(ex: Exchange) -> None:
        await ex.request()
        await ex.answer(sized(b'{"ok":1}'))
        await ex.reader.read(1)  # the next request's first byte: hang up without a word

    async def go() -> tuple[list[Any], int]:
        async with Server(handle) as server, make_client(5) as client:
            answers = [await request_json(client, "GET", server.url, backoff=NO_BACKOFF)]
            answers.append(await request_json(client, "GET", server.url, backoff=NO_BACKOFF))
            return answers, server.accepted

    answers, accepted = run(go())
    assert answers == [{"ok": 1}] * 2
    assert accepted == 2


def test_pooled_connections_idle_out() -> None:
    async def go() -> int:
        async with Server(serve_each(sized(b"{}"))) as server:
            pool = WirePool(connect_timeout=5, read_timeout=5, idle_expiry=0.1)
            try:
                for pause in (0.0, 0.3):
                    await asyncio.sleep(pause)
                    response = await pool.send(Request("GET", server.url, {}, b"", 5))
                    await response.aread()
                    await response.aclose()
            finally:
                await pool.aclose()
            return server.accepted

    assert run(go()) == 2


# ------------------------------------------------------------------ failures


def test_server_down_is_one_line_server_unreachable_after_the_retries() -> None:
    url = f"http://127.0.0.1:{free_port()}"

    async def go() -> None:
        async with make_client(5) as client:
            await lines_of(client, url, backoff=(0.05, 0.05))

    started = time.monotonic()
    with pytest.raises(ServerUnreachable) as info:
        run(go())
    assert time.monotonic() - started >= 0.1
    assert "\n" not in str(info.value)
    assert url in str(info.value) and "connection refused" in str(info.value)


def test_http_error_with_a_json_body_carries_the_message_and_is_not_retried() -> None:
    body = json.dumps({"error": {"message": "model 'x' not found"}}).encode()

    async def go() -> tuple[ServerHTTPError, int]:
        server = Server(serve_each(sized(body, b"404 Not Found")))
        async with server, make_client(5) as client:
            with pytest.raises(ServerHTTPError) as info:
                await lines_of(client, server.url, backoff=(0.01, 0.01))
            return info.value, len(server.requests)

    error, requests = run(go())
    assert error.status == 404 and error.message == "model 'x' not found"
    assert requests == 1


def test_server_error_status_5xx_with_plain_body() -> None:
    async def go() -> ServerHTTPError:
        answer = sized(b"upstream exploded", b"503 Service Unavailable")
        async with Server(serve_each(answer)) as server, make_client(5) as client:
            with pytest.raises(ServerHTTPError) as info:
                await lines_of(client, server.url)
            return info.value

    error = run(go())
    assert (error.status, error.message) == (503, "upstream exploded")


def test_server_dying_mid_stream_is_a_stream_error_and_not_retried() -> None:
    async def handle(ex: Exchange) -> None:
        await ex.request()
        await ex.answer(chunked(b'{"a":1}\n', end=False))
        ex.writer.transport.abort()

    async def go() -> tuple[list[str], int]:
        got: list[str] = []
        async with Server(handle) as server, make_client(5) as client:
            request = json_request(client, "POST", server.url, {})
            response = await send_with_retry(client, request, backoff=(0.01, 0.01))
            try:
                with pytest.raises(StreamError, match="mid-answer"):
                    async for line in iter_lines(response):
                        got.append(line)
            finally:
                await response.aclose()
            return got, server.accepted

    got, accepted = run(go())
    assert got == ['{"a":1}']
    assert accepted == 1


def test_silence_before_the_first_byte_is_retried_then_read_idle_timeout() -> None:
    async def handle(ex: Exchange) -> None:
        await ex.request()
        await asyncio.sleep(5)

    async def go() -> tuple[ReadIdleTimeout, int]:
        async with Server(handle) as server, make_client(0.2) as client:
            with pytest.raises(ReadIdleTimeout) as info:
                await lines_of(client, server.url, backoff=(0.01, 0.01))
            return info.value, server.accepted

    error, accepted = run(go())
    assert error.seconds == 0.2
    assert accepted == 3  # the first try and two retries, each on a fresh connection


def test_silence_after_the_first_byte_is_read_idle_timeout_never_retried() -> None:
    async def handle(ex: Exchange) -> None:
        await ex.request()
        await ex.answer(chunked(b'{"a":1}\n', end=False))
        await asyncio.sleep(5)

    async def go() -> tuple[list[str], int]:
        got: list[str] = []
        async with Server(handle) as server, make_client(0.2) as client:
            request = json_request(client, "POST", server.url, {})
            response = await send_with_retry(client, request, backoff=(0.01, 0.01))
            with pytest.raises(ReadIdleTimeout):
                async for line in iter_lines(response):
                    got.append(line)
            await response.aclose()
            return got, server.accepted

    assert run(go()) == (['{"a":1}'], 1)


def test_a_head_broken_off_after_its_first_byte_is_not_retried() -> None:
    """On a reused connection too: a byte arrived, so the server may have acted."""

    async def handle(ex: Exchange) -> None:
        await ex.request()
        await ex.answer(sized(b"{}"))
        await ex.request()
        ex.writer.write(b"HTTP/1.1 200 O")
        await ex.writer.drain()
        ex.writer.transport.abort()

    async def go() -> int:
        async with Server(handle) as server, make_client(5) as client:
            await request_json(client, "GET", server.url)
            with pytest.raises(StreamError, match="failed before answering"):
                await lines_of(client, server.url, backoff=(0.01, 0.01))
            return server.accepted

    assert run(go()) == 1


def test_garbage_instead_of_http_is_a_stream_error() -> None:
    async def handle(ex: Exchange) -> None:
        await ex.request()
        ex.writer.write(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")
        await ex.writer.drain()

    async def go() -> None:
        async with Server(handle) as server, make_client(5) as client:
            await lines_of(client, server.url)

    with pytest.raises(StreamError, match="not valid HTTP"):
        run(go())


# ------------------------------------------------------------------ routing


ROUTED = (
    "import asyncio, json, sys\n"
    "from rift.models.http import make_client, request_json\n"
    "async def go():\n"
    "    async with make_client(5) as client:\n"
    "        return await request_json(client, 'GET', sys.argv[1] + '/api/tags')\n"
    "tags = asyncio.run(go())\n"
    "print(json.dumps([tags['models'][0]['name'], 'httpx' in sys.modules,"
    " 'rift.models.wire' in sys.modules]))"
)
"""Lists a fake server's models in a fresh interpreter, then names the stack it loaded."""


@pytest.mark.parametrize(
    ("env", "over_httpx"),
    [
        ({}, False),
        ({"HTTP_PROXY": "http://127.0.0.1:9"}, True),
        ({"all_proxy": "socks5://127.0.0.1:9"}, True),
        ({"http_proxy": "http://127.0.0.1:9", "NO_PROXY": "example.org,127.0.0.1"}, False),
        ({"http_proxy": "http://127.0.0.1:9", "no_proxy": "*"}, False),
        ({"http_proxy": "http://127.0.0.1:9", "no_proxy": "127.0.0.0/8"}, True),
        ({"https_proxy": "http://127.0.0.1:9"}, False),
    ],
)
def test_plain_http_goes_over_wire_unless_a_proxy_setting_may_apply(
    env: dict[str, str], over_httpx: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proxied URL keeps httpx, which reaches the server as it always did (directly:
    rift's httpx client has an explicit transport, so httpx ignores proxy settings)."""
    for key in list(os.environ):
        if key.lower().endswith("_proxy"):
            monkeypatch.delenv(key)
    with FakeModelServer({}) as fake:
        out = subprocess.run(
            [sys.executable, "-c", ROUTED, fake.url],
            env={**os.environ, **env}, capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
    name, httpx_loaded, wire_loaded = json.loads(out.stdout)
    assert name == "fake-model"
    assert httpx_loaded is over_httpx
    assert wire_loaded is not over_httpx


def test_the_fake_server_streams_over_wire() -> None:
    """The scripted fake model server, as the providers use it (NDJSON, chunked)."""
    script = {"turns": [{"content": ["a", "b"], "final_newline": False}]}

    async def go(url: str) -> list[str]:
        async with make_client(5) as client:
            return await lines_of(client, f"{url}/api/chat")

    with FakeModelServer(script) as fake:
        lines = run(go(fake.url))
    assert [json.loads(line)["message"]["content"] for line in lines[:2]] == ["a", "b"]
    assert json.loads(lines[-1])["done"] is True  # the unterminated last line arrived

"""The one HTTP client every provider shares, and the rules for talking through it.

- no whole-request timeout: a slow local model's long answer is normal, so only
  *silence* is an error (a read-idle timeout, `Config.read_timeout`);
- TCP keepalive every 20 s, because NAT boxes reaped idle connections during long
  prefills; TCP_NODELAY, so a request leaves at once.

Plain-http URLs go over `wire.py` (no httpx imported), https and proxied ones over
httpx (`httpx_transport.py`). `send_with_retry` retries only a connection that never
opened or a server that never started answering: once a byte has arrived the model
may have acted. Every transport error is mapped into `rift.errors` here.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Sequence
from typing import Any
from urllib.parse import urlsplit

from rift import __version__
from rift.errors import ModelError, ReadIdleTimeout, ServerHTTPError, ServerUnreachable, StreamError
from rift.models.proxy_env import may_proxy
from rift.models.transport import (
    ConnectFailed,
    ReadTimedOut,
    Request,
    Response,
    Transport,
    TransportError,
)

USER_AGENT = f"rift/{__version__}"
CONNECT_TIMEOUT_S = 10.0
KEEPALIVE_S = 20
POOL_IDLE_S = 30.0
RETRY_BACKOFF_S: tuple[float, ...] = (0.4, 0.8)
"""Sleeps between the 3 attempts of `send_with_retry`."""
ERROR_BODY_CHARS = 600
ERROR_BODY_CAP = 64 * 1024
"""The most read of an error body: its message is shown in one line, and a server
that answers 500 with 256 MiB must not take rift's memory with it."""
JSON_BODY_CAP = 4 * 1024 * 1024
"""The most read of a whole JSON answer (model lists, `/props`, `/api/show`): the
largest real model list seen is about 1 MiB; past this the answer is refused."""

__all__ = [
    "Client",
    "Request",
    "Response",
    "drain",
    "error_message",
    "iter_lines",
    "json_request",
    "lists",
    "loads_line",
    "make_client",
    "request_json",
    "send_with_retry",
]


def _socket_options() -> list[tuple[int, int, int]]:
    """TCP_NODELAY and keepalive socket options, leaving out whichever this platform lacks."""
    options: list[tuple[int, int, int]] = [
        (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),
        (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1),
    ]
    for name in ("TCP_KEEPIDLE", "TCP_KEEPINTVL"):
        value = getattr(socket, name, None)
        if isinstance(value, int):
            options.append((socket.IPPROTO_TCP, value, KEEPALIVE_S))
    return options


def _plain_http(url: str) -> bool:
    """A URL `wire.py` can carry: http, no credentials in it, no proxy setting for it."""
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname or "@" in parts.netloc:
        return False
    return not may_proxy(parts.hostname)


class Client:
    """rift's HTTP client: one per provider (or shared), two transports behind it, each
    built on first use (a run against a local server never loads httpx). Which one an
    origin uses is settled once per client, as httpx reads the proxy environment once."""

    def __init__(
        self, read_timeout: float, connect_timeout: float, headers: dict[str, str], tls: bool
    ) -> None:
        self._read_timeout = read_timeout
        self._connect_timeout = connect_timeout
        self._headers = headers
        self._tls = tls
        self._wire: Transport | None = None
        self._httpx: Transport | None = None
        self._routes: dict[str, bool] = {}
        """Origin (`scheme://netloc`) → True when it goes over `wire.py`."""

    def build_request(
        self,
        method: str,
        url: str,
        *,
        content: bytes = b"",
        headers: dict[str, str] | None = None,
    ) -> Request:
        """A request carrying the client's default headers and read timeout."""
        merged = {**self._headers, **headers} if headers else dict(self._headers)
        return Request(method, url, merged, content, self._read_timeout)

    async def send(self, request: Request) -> Response:
        """The response once its head arrived; raises `transport`'s errors."""
        return await self._transport_for(request.url).send(request)

    def _transport_for(self, url: str) -> Transport:
        key = "/".join(url.split("/", 3)[:3])  # the origin, `scheme://netloc`
        wire = self._routes.get(key)
        if wire is None:
            wire = self._routes[key] = _plain_http(url)
        if wire:
            if self._wire is None:
                from rift.models.wire import WirePool

                self._wire = WirePool(
                    connect_timeout=self._connect_timeout,
                    read_timeout=self._read_timeout,
                    socket_options=_socket_options(),
                    idle_expiry=POOL_IDLE_S,
                )
            return self._wire
        if self._httpx is None:
            from rift.models.httpx_transport import HttpxTransport  # https, proxies: httpx

            self._httpx = HttpxTransport(
                connect_timeout=self._connect_timeout,
                read_timeout=self._read_timeout,
                socket_options=_socket_options(),
                idle_expiry=POOL_IDLE_S,
                tls=self._tls,
            )
        return self._httpx

    async def aclose(self) -> None:
        """Close every pooled connection of both transports."""
        for transport in (self._wire, self._httpx):
            if transport is not None:
                await transport.aclose()

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def make_client(
    read_timeout: float,
    *,
    connect_timeout: float = CONNECT_TIMEOUT_S,
    headers: dict[str, str] | None = None,
    tls: bool = True,
) -> Client:
    """A client with rift's timeouts, keepalive and user agent; `read_timeout` is the
    seconds of silence tolerated (0: none). `tls` False, for a plain-http server, skips
    loading the CA bundle even for a request that goes through httpx (a proxied URL)."""
    return Client(read_timeout, connect_timeout, {"User-Agent": USER_AGENT, **(headers or {})}, tls)


def json_request(
    client: Client,
    method: str,
    url: str,
    body: Any,
    headers: dict[str, str] | None = None,
) -> Request:
    """A request with a JSON body encoded as httpx would (compact, UTF-8), except that a
    lone surrogate (a non-UTF-8 filename in a tool result, a `\\ud800` from a client)
    becomes a `\\udXXX` escape instead of an encoding error that kills the turn."""
    content = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return client.build_request(
        method,
        url,
        content=content.encode("utf-8", errors="backslashreplace"),
        headers={"Content-Type": "application/json", **(headers or {})},
    )


def error_message(body: bytes | str) -> str:
    """The server's own explanation from an error body: `{"error": "s"}` and
    `{"error": {"message": "s"}}` give `s`, anything else the body's first 600 characters."""
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, str) and error:
            return error
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
    return text.strip()[:ERROR_BODY_CHARS]


async def read_capped(response: Response, cap: int) -> tuple[bytes, bool]:
    """At most `cap` bytes of the body, and whether there was more. The rest is left
    unread (the caller closes the response, which drops the connection)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > cap:
            return b"".join(chunks)[:cap], True
    return b"".join(chunks), False


async def _raise_for_status(response: Response) -> None:
    """Close a non-2xx response and raise ServerHTTPError with the server's message."""
    try:
        body, _ = await read_capped(response, ERROR_BODY_CAP)
    except TransportError:
        body = b""
    finally:
        await response.aclose()
    message = error_message(body) or response.reason_phrase or "request failed"
    raise ServerHTTPError(response.status_code, message)


async def send_with_retry(
    client: Client,
    request: Request,
    *,
    base_url: str | None = None,
    backoff: Sequence[float] = RETRY_BACKOFF_S,
) -> Response:
    """Send `request` as a stream and return the open 2xx response (the caller closes it).

    Up to `len(backoff) + 1` attempts, sleeping `backoff[i]` between them, only when the
    connection failed or the server sent nothing before the timeout (never on a non-2xx).

    Raises:
        ServerUnreachable: no connection could be opened.
        ReadIdleTimeout: the server accepted but never started answering.
        ServerHTTPError: a non-2xx status, with the server's message.
        StreamError: any other transport failure before the answer began.
    """
    parts = urlsplit(request.url)
    host = base_url or f"{parts.scheme}://{parts.netloc}"
    attempt = 0
    while True:
        try:
            response = await client.send(request)
            break
        except (ConnectFailed, ReadTimedOut) as exc:
            if attempt >= len(backoff):
                if isinstance(exc, ReadTimedOut):
                    raise ReadIdleTimeout(exc.seconds) from exc
                raise ServerUnreachable(host, str(exc) or type(exc).__name__) from exc
            await asyncio.sleep(backoff[attempt])
            attempt += 1
        except TransportError as exc:
            raise StreamError(
                f"the model server at {host} failed before answering: {exc or type(exc).__name__}"
            ) from exc
    if not response.is_success:
        await _raise_for_status(response)
    return response


async def iter_lines(response: Response) -> AsyncIterator[str]:
    """Stripped, non-blank lines of a streamed body, including a final unterminated one
    (servers that omit the trailing newline put their final stats there).
    Transport failures become StreamError, silence ReadIdleTimeout."""
    pending = b""
    try:
        async for chunk in response.aiter_bytes():
            if b"\n" not in chunk:
                pending += chunk
                continue
            pieces = (pending + chunk).split(b"\n")
            pending = pieces.pop()
            for piece in pieces:
                line = piece.strip()
                if line:
                    yield line.decode("utf-8", errors="replace")
    except ReadTimedOut as exc:
        raise ReadIdleTimeout(exc.seconds) from exc
    except TransportError as exc:
        raise StreamError(
            f"the model server closed the stream mid-answer: {exc or type(exc).__name__}"
        ) from exc
    tail = pending.strip()
    if tail:
        yield tail.decode("utf-8", errors="replace")


_DECODER = json.JSONDecoder()


def loads_line(text: str) -> Any:
    """`json.loads(text)` for one stripped line of a stream (once per token), without the
    whitespace scans it wraps around the parser; anything unusual goes to `json.loads`
    itself, so results and errors are the same."""
    try:
        value, end = _DECODER.raw_decode(text)
    except ValueError:
        return json.loads(text)
    return value if end == len(text) else json.loads(text)


def error_mid_answer(error: object) -> StreamError:
    """What to raise for an error a server sent inside its stream (its `message`, if any)."""
    message = error.get("message", error) if isinstance(error, dict) else error
    return StreamError(f"the model server reported an error mid-answer: {message}")


def object_line(text: str, line: str | None = None) -> dict[str, Any]:
    """`text`, one line of a stream, as the JSON object it must be; a StreamError quoting
    the `line` it came from (`text` itself when not given) when it is anything else."""
    try:
        data = loads_line(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise StreamError(f"malformed line from the model server: {(line or text)[:200]}")
    return data


DRAIN_LINES = 64
DRAIN_SECONDS = 1.0


async def drain(lines: AsyncIterator[str]) -> None:
    """Read what follows the final line of an answer, so the connection can be reused
    (closed before its body ends, it is dropped, and the next iteration pays a new
    handshake). A server that keeps talking is given a few lines or a second."""
    try:
        async with asyncio.timeout(DRAIN_SECONDS):
            count = 0
            async for _ in lines:
                count += 1
                if count >= DRAIN_LINES:
                    return
    except (TimeoutError, StreamError, ReadIdleTimeout):
        return


async def request_json(
    client: Client,
    method: str,
    url: str,
    *,
    base_url: str | None = None,
    json_body: Any = None,
    headers: dict[str, str] | None = None,
    backoff: Sequence[float] = RETRY_BACKOFF_S,
) -> Any:
    """A whole JSON answer (model lists, model details), with the retry rules above.

    Raises:
        StreamError: the body broke off or is not JSON.
        plus everything `send_with_retry` raises.
    """
    if json_body is None:
        request = client.build_request(method, url, headers=headers)
    else:
        request = json_request(client, method, url, json_body, headers)
    response = await send_with_retry(client, request, base_url=base_url, backoff=backoff)
    try:
        body, more = await read_capped(response, JSON_BODY_CAP)
    except ReadTimedOut as exc:
        raise ReadIdleTimeout(exc.seconds) from exc
    except TransportError as exc:
        raise StreamError(f"the model server closed the connection mid-answer: {exc}") from exc
    finally:
        await response.aclose()
    if more:
        raise StreamError(
            f"the model server's answer to {method} {urlsplit(url).path} is larger than"
            f" {JSON_BODY_CAP >> 20} MiB; not read"
        )
    try:
        return json.loads(body)
    except ValueError as exc:
        preview = body[:200].decode("utf-8", errors="replace")
        raise StreamError(f"malformed answer from the model server: {preview}") from exc


async def lists(client: Client, url: str, key: str) -> bool | None:
    """True when GET `url` gives a JSON object with a list under `key`; None when the
    server cannot be reached at all (no point asking further). Asked once, no retries."""
    try:
        data = await request_json(client, "GET", url, backoff=())
    except ServerUnreachable:
        return None
    except ModelError:
        return False
    return isinstance(data, dict) and isinstance(data.get(key), list)

"""HTTP/1.1 over asyncio streams, h11 doing all of the parsing: rift's transport for
plain-http model servers (the self-hosted case: Ollama, llama.cpp, vLLM on a LAN).

httpx, httpcore and anyio cost a large share of a `rift -p` run, mostly imports; h11 is
the state machine httpcore itself runs on, so this module only moves bytes and keeps
connections, by `http.py`'s rules. A pooled connection the server closed just as a
request went out (nothing came back, so nothing was acted on) is retried once, fresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any
from urllib.parse import urlsplit

import h11

from rift.models.transport import ConnectFailed, ReadTimedOut, Request, TransportError

READ_SIZE = 1 << 16
SocketOption = tuple[int, int, int]
_Key = tuple[str, int]
_FIXED_HEADERS = (("Accept", "*/*"), ("Accept-Encoding", "identity"))
"""Sent unless the request names them: identity, because this transport decodes no
compressed bodies (a server that compresses anyway is refused, not misread)."""


class _Stale(Exception):
    """A reused connection failed before a single byte came back."""


class _Origin:
    """Where a URL's request goes, and the request line's target."""

    __slots__ = ("host", "host_header", "key", "target")

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise TransportError(f"not a plain-http URL: {url}")
        port = parts.port or 80
        self.host = parts.hostname
        self.key: _Key = (parts.hostname, port)
        netloc = parts.netloc.rpartition("@")[2]
        self.host_header = netloc.removesuffix(":80")
        self.target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


class _Connection:
    """One socket and its h11 state machine."""

    __slots__ = ("h11", "idle_since", "key", "reader", "received", "writer")

    def __init__(
        self, key: _Key, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        self.key = key
        self.reader = reader
        self.writer = writer
        self.h11 = h11.Connection(h11.CLIENT)
        self.received = 0
        """Bytes read during the current exchange: 0 means the server said nothing."""
        self.idle_since = 0.0

    def usable(self) -> bool:
        """Idle on both sides and not closed by the server while it sat in the pool."""
        return (
            self.h11.our_state is h11.IDLE
            and self.h11.their_state is h11.IDLE
            and not self.reader.at_eof()
            and not self.writer.is_closing()
        )

    def close(self) -> None:
        self.writer.close()

    async def send_request(self, request: Request, origin: _Origin) -> None:
        headers = [("Host", origin.host_header), *request.headers.items()]
        named = {name.lower() for name, _ in headers}
        headers += [(k, v) for k, v in _FIXED_HEADERS if k.lower() not in named]
        if request.content or request.method in ("POST", "PUT", "PATCH"):
            headers.append(("Content-Length", str(len(request.content))))
        try:
            head = h11.Request(method=request.method, target=origin.target, headers=headers)
            data = self.h11.send(head) or b""
            if request.content:
                data += self.h11.send(h11.Data(data=request.content)) or b""
            data += self.h11.send(h11.EndOfMessage()) or b""
        except h11.LocalProtocolError as exc:
            raise TransportError(f"cannot send this request: {exc}") from exc
        try:
            self.writer.write(data)  # one write: head and body leave in one segment
            await self.writer.drain()
        except OSError as exc:
            raise TransportError(f"sending failed: {exc}") from exc

    async def _receive(self, timeout: float) -> bytes:
        try:
            async with asyncio.timeout(timeout if timeout > 0 else None):
                data = await self.reader.read(READ_SIZE)
        except TimeoutError as exc:
            raise ReadTimedOut(timeout) from exc
        except OSError as exc:
            raise TransportError(f"the connection broke: {exc}") from exc
        self.received += len(data)
        return data

    async def next_event(self, timeout: float) -> h11.Event:
        """The server's next HTTP event, reading as needed (idle timeout per read)."""
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                if self.reader.at_eof():
                    raise TransportError(f"the server closed the connection early ({exc})") from exc
                raise TransportError(f"the server's answer is not valid HTTP/1.1: {exc}") from exc
            if isinstance(event, h11.Event):
                return event
            if event is h11.PAUSED:
                raise TransportError("the server sent more than one answer")
            self.h11.receive_data(await self._receive(timeout))

    async def read_head(self, timeout: float) -> h11.Response:
        while True:
            event = await self.next_event(timeout)
            if isinstance(event, h11.Response):
                return event
            if not isinstance(event, h11.InformationalResponse):  # 100 Continue: skip
                raise TransportError(f"the server closed the connection ({type(event).__name__})")


class WireResponse:
    """A response on a pooled connection (see `transport.Response`)."""

    def __init__(
        self, pool: WirePool, conn: _Connection, head: h11.Response, read_timeout: float
    ) -> None:
        self._pool = pool
        self._conn: _Connection | None = conn
        self._read_timeout = read_timeout
        self._extra = conn.writer.get_extra_info
        self.status_code = head.status_code
        self.reason_phrase = head.reason.decode("latin-1")
        encoding = dict(head.headers).get(b"content-encoding", b"identity").lower()
        if encoding != b"identity":
            self._drop()
            raise TransportError(f"the server sent a {encoding.decode('latin-1')} body")

    @property
    def is_success(self) -> bool:
        return 200 <= self.status_code < 300

    def get_extra_info(self, name: str) -> Any:
        return self._extra(name)

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        conn = self._conn
        while conn is not None:
            event = await conn.next_event(self._read_timeout)
            if isinstance(event, h11.Data):
                if event.data:
                    yield bytes(event.data)
            elif isinstance(event, h11.EndOfMessage):
                self._conn = None
                self._pool.release(conn)
                return
            else:
                raise TransportError("the server closed the connection mid-answer")

    async def aread(self) -> bytes:
        return b"".join([chunk async for chunk in self.aiter_bytes()])

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    async def aclose(self) -> None:
        """Drop the connection unless the body was read to its end."""
        self._drop()


class WirePool:
    """Keep-alive connections per (host, port), and the requests sent over them."""

    def __init__(
        self,
        *,
        connect_timeout: float,
        read_timeout: float,
        socket_options: Sequence[SocketOption] = (),
        idle_expiry: float = 30.0,
    ) -> None:
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._socket_options = tuple(socket_options)
        self._idle_expiry = idle_expiry
        self._idle: dict[_Key, list[_Connection]] = {}

    async def send(self, request: Request) -> WireResponse:
        """Send `request`; the response once its head has arrived.

        Raises:
            ConnectFailed: no connection could be opened.
            ReadTimedOut: the server sent nothing for the read timeout.
            TransportError: the exchange broke or is not HTTP.
        """
        origin = _Origin(request.url)
        conn = self._take_idle(origin.key)
        if conn is not None:
            try:
                return await self._exchange(conn, request, origin)
            except _Stale:
                pass  # closed by the server as the request went out: once more, fresh
        conn = await self._open(origin)
        try:
            return await self._exchange(conn, request, origin)
        except _Stale as exc:
            raise TransportError("the server closed the connection without answering") from exc

    async def _exchange(self, conn: _Connection, request: Request, origin: _Origin) -> WireResponse:
        conn.received = 0
        try:
            await conn.send_request(request, origin)
            head = await conn.read_head(request.read_timeout)
        except ReadTimedOut:
            conn.close()
            raise
        except TransportError as exc:
            conn.close()
            if conn.received == 0:
                raise _Stale(str(exc)) from exc
            raise
        except BaseException:
            conn.close()
            raise
        return WireResponse(self, conn, head, request.read_timeout)

    async def _open(self, origin: _Origin) -> _Connection:
        try:
            async with asyncio.timeout(self._connect_timeout):
                reader, writer = await asyncio.open_connection(*origin.key)
        except TimeoutError as exc:
            raise ConnectFailed(f"no connection within {self._connect_timeout:g} s") from exc
        except OSError as exc:
            raise ConnectFailed(_connect_detail(exc)) from exc
        sock = writer.get_extra_info("socket")
        for level, option, value in self._socket_options:
            with contextlib.suppress(OSError):
                sock.setsockopt(level, option, value)
        return _Connection(origin.key, reader, writer)

    def _take_idle(self, key: _Key) -> _Connection | None:
        """The most recently used live connection to `key`; expired ones are closed."""
        deadline = time.monotonic() - self._idle_expiry
        found = None
        for idle_key, idle in self._idle.items():
            for conn in list(idle):
                if conn.idle_since < deadline or not conn.usable():
                    idle.remove(conn)
                    conn.close()
            if idle_key == key and idle:
                found = idle.pop()
        return found

    def release(self, conn: _Connection) -> None:
        """Back into the pool after a whole answer, unless either side must close."""
        if conn.h11.our_state is h11.DONE and conn.h11.their_state is h11.DONE:
            conn.h11.start_next_cycle()
            conn.idle_since = time.monotonic()
            self._idle.setdefault(conn.key, []).append(conn)
            return
        conn.close()

    async def aclose(self) -> None:
        """Close every pooled connection and wait until they are."""
        idle = [conn for conns in self._idle.values() for conn in conns]
        self._idle.clear()
        for conn in idle:
            conn.close()
        for conn in idle:
            with contextlib.suppress(OSError):
                await conn.writer.wait_closed()


def _connect_detail(exc: OSError) -> str:
    """A one-line reason a connection could not be opened."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, socket.gaierror):
        return f"cannot resolve the host name: {exc.strerror or exc}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


__all__ = ["SocketOption", "WirePool", "WireResponse"]

"""What an HTTP transport promises `models/http.py`: one request shape, one response
shape, three failures (`wire.py` and `httpx_transport.py` keep it). The retry and
error rules live once, in `http.py`, so a transport only says *how* a request failed:

    TransportError       anything else: a broken or malformed exchange
    ├── ConnectFailed    no connection could be opened (refused, DNS, timeout)
    └── ReadTimedOut     the server went silent for the read-idle timeout

It imports nothing heavy, so every path can name these types.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from msgspec import Struct


class TransportError(Exception):
    """The exchange broke: reset, closed early, or bytes that are not HTTP."""


class ConnectFailed(TransportError):
    """No connection could be opened; the request never left."""


class ReadTimedOut(TransportError):
    """Nothing arrived for the read-idle timeout."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(f"nothing arrived for {seconds:g} s")


class Request(Struct):
    """One HTTP request, its headers already merged with the client's defaults."""

    method: str
    url: str
    headers: dict[str, str]
    content: bytes = b""
    read_timeout: float = 0.0
    """Seconds of silence tolerated while reading; 0 = none (for error messages too)."""

    def __repr__(self) -> str:
        return f"<Request {self.method} {self.url}>"


class Response(Protocol):
    """An answer whose head has arrived; the body is read on demand, once. The caller
    must `aclose()` it: only a body read to its end lets the connection be reused."""

    status_code: int
    reason_phrase: str

    @property
    def is_success(self) -> bool:
        """A 2xx status."""
        ...

    def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body as it arrives. Raises ReadTimedOut or TransportError."""
        ...

    async def aread(self) -> bytes:
        """The whole body. Raises ReadTimedOut or TransportError."""
        ...

    async def aclose(self) -> None: ...

    def get_extra_info(self, name: str) -> Any:
        """asyncio's transport details of the connection (`"socket"`, `"peername"`)."""
        ...


class Transport(Protocol):
    """Sends requests over connections it pools; `http.Client` holds one of each kind."""

    async def send(self, request: Request) -> Response:
        """The response once its head arrived. Raises the errors above."""
        ...

    async def aclose(self) -> None:
        """Close every pooled connection."""
        ...

"""httpx behind rift's transport contract, for https and proxied URLs, imported only then.

TLS (certifi's CA bundle, verification) behaves as it always has. The client is built
with an explicit transport (for the socket options), so httpx reads no proxy
environment and connects directly, as rift always has.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from rift.models.transport import (
    ConnectFailed,
    ReadTimedOut,
    Request,
    Response,
    TransportError,
)
from rift.net._httpx import httpx

SocketOption = tuple[int, int, int]


def _mapped(exc: httpx.HTTPError, read_timeout: float) -> TransportError:
    """The transport contract's error for an httpx one."""
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return ConnectFailed(detail)
    if isinstance(exc, httpx.ReadTimeout):
        return ReadTimedOut(read_timeout)
    return TransportError(detail)


class HttpxResponse:
    """An httpx streaming response, keeping `transport.Response`'s promises."""

    def __init__(self, response: httpx.Response, read_timeout: float) -> None:
        self._response = response
        self._read_timeout = read_timeout
        self.status_code = response.status_code
        self.reason_phrase = response.reason_phrase

    @property
    def is_success(self) -> bool:
        return self._response.is_success

    def get_extra_info(self, name: str) -> Any:
        stream = self._response.extensions.get("network_stream")
        return None if stream is None else stream.get_extra_info(name)

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._response.aiter_bytes():
                yield chunk
        except httpx.HTTPError as exc:
            raise _mapped(exc, self._read_timeout) from exc

    async def aread(self) -> bytes:
        try:
            return await self._response.aread()
        except httpx.HTTPError as exc:
            raise _mapped(exc, self._read_timeout) from exc

    async def aclose(self) -> None:
        await self._response.aclose()


class HttpxTransport:
    """One httpx.AsyncClient with rift's timeouts, pool expiry and socket options."""

    def __init__(
        self,
        *,
        connect_timeout: float,
        read_timeout: float,
        socket_options: Sequence[SocketOption],
        idle_expiry: float,
        tls: bool,
    ) -> None:
        self._read_timeout = read_timeout
        timeout = httpx.Timeout(
            connect=connect_timeout,
            read=read_timeout if read_timeout > 0 else None,
            write=None,
            pool=None,
        )
        transport = httpx.AsyncHTTPTransport(
            verify=tls,
            limits=httpx.Limits(keepalive_expiry=idle_expiry),
            socket_options=list(socket_options),
        )
        self._client = httpx.AsyncClient(timeout=timeout, transport=transport)

    async def send(self, request: Request) -> Response:
        built = self._client.build_request(
            request.method, request.url, content=request.content or None, headers=request.headers
        )
        try:
            response = await self._client.send(built, stream=True)
        except httpx.HTTPError as exc:
            raise _mapped(exc, self._read_timeout) from exc
        return HttpxResponse(response, self._read_timeout)

    async def aclose(self) -> None:
        await self._client.aclose()

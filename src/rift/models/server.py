"""What the providers that talk to a server share: `Connection` (how the registry connects
one), `ServerProvider` (the base URL and the client it may own) and `ListingServer` (the
OpenAI-style model listing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Self

from msgspec import Struct

from rift.config.records import DEFAULT_READ_TIMEOUT
from rift.models.http import Client, make_client, request_json


class Connection(Struct, frozen=True):
    """What the registry hands a provider class's `connect`: the server, its key, how long
    a read may stay silent, a shared client (None: the provider makes and closes its own)
    and the cache folder (where the embedded model's weights are assembled)."""

    base_url: str
    api_key: str | None
    read_timeout: float
    client: Client | None = None
    cache_dir: Path | None = None


class ServerProvider:
    """What the providers that talk to a server share: the base URL without its trailing
    `/`, and a client closed by `aclose` only when the provider made it itself."""

    def __init__(
        self,
        base_url: str,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        client: Client | None = None,
    ) -> None:
        """`read_timeout` is the read-idle timeout in seconds (0: none), unused with a
        shared `client`, which the provider then does not close."""
        self._base_url = base_url.rstrip("/")
        self._owns_client = client is None
        self._client = client or make_client(read_timeout, tls=self._base_url.startswith("https:"))

    @property
    def base_url(self) -> str:
        return self._base_url

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()


class ListingServer(ServerProvider):
    """A server that lists its models at `{base_url}/models` (the OpenAI and Anthropic
    APIs), asked with the provider's `_headers`."""

    MODELS_QUERY: ClassVar[str] = ""

    @classmethod
    def connect(cls, to: Connection) -> Self:
        """The registry's constructor (every provider class has one of this shape)."""
        return cls(to.base_url, to.api_key, to.read_timeout, client=to.client)

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        client: Client | None = None,
    ) -> None:
        """Args: as `ServerProvider`'s, and `api_key`, sent in the headers `_auth_headers`
        makes of it (`Authorization: Bearer <key>` when set, unless a provider says else)."""
        super().__init__(base_url, read_timeout, client)
        self._headers = self._auth_headers(api_key)

    @staticmethod
    def _auth_headers(api_key: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {api_key}"} if api_key else {}

    async def _entries(self) -> list[dict[str, Any]]:
        """The listing's `data`, only entries with a string `id`: a server's odd entries
        never reach a picker."""
        url = f"{self._base_url}/models{self.MODELS_QUERY}"
        data = await request_json(
            self._client, "GET", url, base_url=self._base_url, headers=self._headers
        )
        entries = data.get("data") if isinstance(data, dict) else None
        return [e for e in entries or () if isinstance(e, dict) and isinstance(e.get("id"), str)]

    async def list_models(self) -> list[str]:
        return list(dict.fromkeys(e["id"] for e in await self._entries()))

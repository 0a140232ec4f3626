"""`PooledProvider`: a Provider routing each request through the shared `Pool`, so
swarm candidates, sub-agents and background tasks need no change."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator, Callable, Sequence
from typing import ClassVar

from msgspec.structs import replace

from rift.config.records import Config, PoolHost
from rift.errors import ModelError, ServerHTTPError, ServerUnreachable, StreamError
from rift.events import Event
from rift.models.base import ChatRequest, ModelEvent, ModelInfo, PromptProgress, ProviderTraits
from rift.models.openai import OpenAIProvider
from rift.models.registry import EMBEDDED, Preflight, Route, preflight, resolve
from rift.pool.busy import BUSY_BACKOFF_S, BUSY_STATUSES, retry_busy
from rift.pool.scheduler import POOLS, Pool, Server
from rift.pool.slots import read_slots


def openai_base(url: str) -> str:
    """The OpenAI-compatible base of a pool entry (`/v1` added where it is missing)."""
    url = url.rstrip("/")
    return url if url.endswith("/v1") else url + "/v1"


def shared_pool(hosts: Sequence[PoolHost], read_timeout: float) -> Pool:
    """The pool for these hosts in the running event loop, made on first use."""
    key = (id(asyncio.get_running_loop()), tuple(hosts))
    pool = POOLS.get(key)  # one per event loop and `hosts`: a run shares its counts
    if pool is None:
        servers = [
            Server(
                h.url,
                h.model,
                h.weight,
                OpenAIProvider(openai_base(h.url), h.api_key, read_timeout),
                h.slots,
            )
            for h in hosts
        ]
        pool = POOLS[key] = Pool(servers)
    return pool


def conversation_key(request: ChatRequest) -> tuple[str, object]:
    """What ties requests to one server's cache: the pinned slot of a swarm candidate
    or sub-agent, else the conversation's opening (its system prompt and first ask)."""
    if request.slot is not None:
        return ("slot", request.slot)
    opening = [m.get("content", "") for m in request.messages[:2]]
    return ("opening", hashlib.sha1(json.dumps(opening).encode()).hexdigest())


class PooledProvider:
    """A Provider over several servers; `aclose` leaves the shared pool open."""

    TRAITS: ClassVar[ProviderTraits] = OpenAIProvider.TRAITS

    def __init__(self, pool: Pool, backoff: tuple[float, ...] = BUSY_BACKOFF_S) -> None:
        self.pool = pool
        self.backoff = backoff
        self.emit: Callable[[Event], None] = pool.say
        """Where this conversation's pool lines go (`listen`): the failover line is said
        by the conversation that met the dead server, once."""

    def listen(self, emit: Callable[[Event], None]) -> None:
        """Say this conversation's pool lines (busy retries, failover) through `emit`."""
        self.emit = emit

    @property
    def base_url(self) -> str:
        return openai_base(self.pool.servers[0].url)

    async def start(self) -> None:
        """Read every server's slots and context once (`/props`, vLLM's limits); callers
        that come meanwhile wait for it, so none is placed on a half-known pool."""
        if self.pool.starting is None:
            self.pool.starting = asyncio.ensure_future(self._read_servers())
        await asyncio.shield(self.pool.starting)

    async def _read_servers(self) -> None:
        infos = await asyncio.gather(
            *(read_slots(s.provider, s.model) for s in self.pool.servers), return_exceptions=True
        )
        for server, info in zip(self.pool.servers, infos, strict=True):
            if isinstance(info, BaseException):
                server.set_slots(server.configured_slots)
                self.pool.fail(server, self.emit, _reason(info))
            else:
                server.set_slots(server.configured_slots or info.slots)
                server.context = info.context_length

    async def show(self, model: str) -> ModelInfo:
        """The first answering server's model, with the pool's slots and smallest window."""
        await self.start()
        last: ModelError | None = None
        for server in self.pool.servers:
            if not server.up:
                continue
            try:
                info = await server.provider.show(server.model)
            except ModelError as exc:
                last = exc
                continue
            windows = [s.context for s in self.pool.servers if s.context]
            return replace(
                info,
                name=model,
                slots=self.pool.total_slots,
                context_length=min(windows) if windows else info.context_length,
            )
        raise last or ServerUnreachable(self.base_url, "no server of the pool answers")

    async def list_models(self) -> list[str]:
        return sorted({s.model for s in self.pool.servers})

    async def aclose(self) -> None:
        """Nothing: the pool outlives each conversation that used it."""

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[ModelEvent]:
        """Stream from the server this conversation belongs on. A server that fails before
        any of the answer arrived (unreachable, busy past the backoff, or cut off while it
        was still reading the prompt) is failed over; once text streamed, a break is the
        turn's error, as on one server (the answer cannot be taken back)."""
        await self.start()
        key = conversation_key(request)
        tried: set[Server] = set()
        while True:
            got = await self.pool.acquire(key, tried)
            if got is None:
                raise ServerUnreachable(self.base_url, "no server of the pool answers")
            server, slot = got
            committed = False
            try:
                stream = await self._opened(server, replace(request, model=server.model, slot=slot))
                if stream is None:
                    tried.add(server)
                    continue
                first, rest = stream
                if first is not None:
                    committed = not isinstance(first, PromptProgress)
                    yield first
                async for event in rest:
                    committed = committed or not isinstance(event, PromptProgress)
                    yield event
                return
            except (StreamError, ServerUnreachable) as exc:
                self.pool.fail(server, self.emit, _reason(exc))
                if committed:
                    raise
                tried.add(server)
            finally:
                self.pool.release(server, slot)

    async def _opened(
        self, server: Server, request: ChatRequest
    ) -> tuple[ModelEvent | None, AsyncIterator[ModelEvent]] | None:
        """The stream and its first event; None when the server failed before it."""

        async def first() -> tuple[ModelEvent | None, AsyncIterator[ModelEvent]]:
            rest = aiter(server.provider.stream_chat(request))
            try:
                return await anext(rest), rest
            except StopAsyncIteration:
                return None, rest

        try:
            return await retry_busy(first, self.emit, self.backoff)
        except ServerHTTPError as exc:
            if exc.status not in BUSY_STATUSES:
                raise
            self.pool.fail(server, self.emit, f"busy: {exc.status}")
        except (ServerUnreachable, StreamError) as exc:
            self.pool.fail(server, self.emit, _reason(exc))
        return None


def _reason(exc: BaseException) -> str:
    """The first line of an error, short enough for the one failover line."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:120]


async def pooled_connect(
    name: str, config: Config
) -> tuple[Route, PooledProvider, Preflight] | None:
    """`registry.connect` for a model of the default host when `hosts` is set: the
    pool's provider, preflighted; None for a configured provider or the embedded model
    (they are not the pool's)."""
    route = resolve(name, config)
    if route.provider_name is not None or route.provider_kind == EMBEDDED:
        return None
    provider = PooledProvider(shared_pool(config.hosts, config.read_timeout))
    route = replace(route, provider_kind="openai", base_url=provider.base_url)
    checked = await preflight(
        provider, route, config.num_ctx, config.num_ctx_explicit, config.effort
    )
    return route, provider, checked

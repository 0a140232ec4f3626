"""Which server of the pool runs a request: slots, affinity, load and failover.

One `Pool` is shared by every conversation of a process that uses the same `hosts`, so
its counts are each server's real load. Requests wait here, never on a server's queue:
a queued request on llama.cpp evicts another conversation's cached prompt.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Hashable

from rift.events import Event, Warning
from rift.models.base import Provider

log = logging.getLogger(__name__)

MAX_SLOTS = 64
"""A server claiming more slots than this is taken at this: a bogus answer must not
let rift open hundreds of streams at once."""
DOWN_S = 30.0
"""How long a server that stopped answering gets no new work before it is tried again."""


class Server:
    """One endpoint and what the pool knows of it (mutable, owned by the `Pool`)."""

    def __init__(
        self,
        url: str,
        model: str,
        weight: float,
        provider: Provider,
        configured_slots: int | None = None,
    ) -> None:
        self.url = url
        self.configured_slots = configured_slots
        """The entry's `slots`, where the user set it: it wins over what the server says."""
        self.model = model
        self.weight = weight
        self.provider = provider
        self.slots = 1
        self.context: int | None = None
        self.in_flight = 0
        self.requests = 0
        self.failures = 0
        self.down_until = 0.0
        self.free: list[int] = [0]
        """Local slot ids (llama.cpp's `id_slot`) no request of this pool holds now."""

    def set_slots(self, slots: int | None) -> None:
        self.slots = max(1, min(MAX_SLOTS, slots or 1))
        self.free = list(range(self.slots))

    @property
    def up(self) -> bool:
        return time.monotonic() >= self.down_until

    def load(self) -> float:
        """Share of this server's weighted capacity in use: the least loaded gets new work."""
        return self.in_flight / (self.slots * self.weight)


class Pool:
    """The scheduler: `acquire` a server for a conversation, `release` it, `fail` it."""

    def __init__(self, servers: list[Server]) -> None:
        self.servers = servers
        self._affinity: dict[tuple[str, object], Server] = {}
        self.starting: asyncio.Future[None] | None = None
        """Set while the first request reads every server's slots; the others wait on it."""
        self._waiters: list[asyncio.Future[None]] = []

    @property
    def total_slots(self) -> int:
        return sum(s.slots for s in self.servers)

    def say(self, event: Event) -> None:
        """A pool line said by no conversation (see `PooledProvider.listen`): to the log."""
        log.warning("%s", getattr(event, "text", event))

    def _choose(self, key: tuple[str, object], exclude: set[Server]) -> Server | bool | None:
        """The server for `key`: the one holding its cache, else the least loaded with
        room; None to wait for room; False when no server is left to try."""
        pinned = self._affinity.get(key)
        if pinned is not None and pinned.up and pinned not in exclude:
            if pinned.in_flight < pinned.slots:
                return pinned
            if key[0] == "slot":  # its own cached conversation is there: worth the wait
                return None
            # an opening shared by several conversations (a swarm's attempts): only a
            # prefix is cached there, not worth leaving the other servers idle for
        alive = [s for s in self.servers if s.up and s not in exclude]
        if not alive:
            return False
        open_ = [s for s in alive if s.in_flight < s.slots]
        if not open_:
            return None
        return min(open_, key=lambda s: (s.load(), s.requests / s.weight))

    async def acquire(
        self, key: tuple[str, object], exclude: set[Server]
    ) -> tuple[Server, int] | None:
        """A server with a free slot for this conversation and the local slot it takes;
        None when every server is excluded or down. Waits while all are full."""
        while True:
            chosen = self._choose(key, exclude)
            if chosen is False:
                return None
            if isinstance(chosen, Server):
                return self._take(chosen, key)
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            with contextlib.suppress(TimeoutError):  # a down server may come back
                await asyncio.wait_for(waiter, timeout=1.0)

    def _take(self, server: Server, key: tuple[str, object]) -> tuple[Server, int]:
        self._affinity[key] = server
        server.in_flight += 1
        server.requests += 1
        slot = server.free.pop(0) if server.free else 0
        return server, slot

    def release(self, server: Server, slot: int) -> None:
        server.in_flight -= 1
        if slot not in server.free and slot < server.slots:
            server.free.append(slot)
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def fail(self, server: Server, say: Callable[[Event], None], reason: str) -> None:
        """Take a server out for `DOWN_S` and move its conversations; said once per outage,
        through the conversation that met it (`say`)."""
        server.failures += 1
        if not server.up:
            return
        server.down_until = time.monotonic() + DOWN_S
        self._affinity = {k: s for k, s in self._affinity.items() if s is not server}
        others = ", ".join(s.url for s in self.servers if s.up) or "no other server"
        say(Warning(f"pool: {server.url} stopped answering ({reason}); its work moves to {others}"))


POOLS: dict[Hashable, Pool] = {}
"""Every pool of this process (one per event loop and `hosts`: provider.shared_pool)."""


def usage_lines() -> list[str]:
    """Per-server use of every pool in this process, one line each (`/stats`, the swarm
    view); empty without a pool."""
    lines: list[str] = []
    for pool in POOLS.values():
        for server in pool.servers:
            state = "" if server.up else ", down"
            lines.append(
                f"pool: {server.url} ({server.model}) {server.requests} requests,"
                f" {server.in_flight}/{server.slots} in flight, {server.failures} failures{state}"
            )
    return lines

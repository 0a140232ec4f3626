"""A server that says it is busy gets another try, and the person sees why rift waits.

llama.cpp's server answers 503 while it loads a model or its slots are full; hosted
gateways answer 429. Both mean "later": the request is sent again after a growing
pause, with a warning each time. Nothing of the answer had streamed, so nothing shows twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from rift.errors import ServerHTTPError
from rift.events import Event, Warning

BUSY_STATUSES = (429, 503)
BUSY_BACKOFF_S: tuple[float, ...] = (1.0, 3.0, 8.0)
"""Pauses before the 2nd, 3rd and 4th try."""

T = TypeVar("T")


async def retry_busy(
    call: Callable[[], Awaitable[T]],
    emit: Callable[[Event], None],
    backoff: tuple[float, ...] = BUSY_BACKOFF_S,
) -> T:
    """`call()`, tried again after each 429 or 503 while `backoff` lasts."""
    for attempt, pause in enumerate((*backoff, None), 1):
        try:
            return await call()
        except ServerHTTPError as exc:
            if exc.status not in BUSY_STATUSES or pause is None:
                raise
            emit(
                Warning(
                    f"the model server is busy ({exc.status}: {exc.message[:120]});"
                    f" trying again in {pause:g} s ({attempt}/{len(backoff)})"
                )
            )
            await asyncio.sleep(pause)
    raise AssertionError("unreachable")

"""`rift doctor` with a pool: every endpoint asked which model it serves, its window and
its slots. Servers that differ are a warning (an attempt's result then depends on where
it ran); one that does not answer is a failure (its share would wait for failover).
"""

from __future__ import annotations

import asyncio
from typing import Literal

from rift.config.load import Config
from rift.errors import ModelError
from rift.models.base import ModelInfo
from rift.models.openai import OpenAIProvider
from rift.pool.provider import openai_base
from rift.pool.scheduler import MAX_SLOTS
from rift.pool.slots import read_slots

CHECK_TIMEOUT_S = 10.0
PoolCheck = tuple[str, Literal["ok", "warn", "fail", "info"], str, str]
"""One line of the doctor's report: name, status, detail, what to change."""


async def _ask(url: str, model: str, key: str | None) -> ModelInfo | str:
    """The endpoint's model info, or why it could not say."""
    provider = OpenAIProvider(openai_base(url), key, CHECK_TIMEOUT_S)
    try:
        return await asyncio.wait_for(read_slots(provider, model), CHECK_TIMEOUT_S)
    except (ModelError, TimeoutError) as exc:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    finally:
        await provider.aclose()


async def pool_checks(config: Config) -> list[PoolCheck]:
    """One line per endpoint, then one saying whether they match."""
    hosts = config.hosts
    report: list[PoolCheck] = []
    answers = await asyncio.gather(*(_ask(h.url, h.model, h.api_key) for h in hosts))
    served: list[ModelInfo] = []
    counted: list[int] = []
    for host, answer in zip(hosts, answers, strict=True):
        if isinstance(answer, str):
            fix = f"start the server at {host.url}, or take it out of `hosts`"
            report.append((host.url, "fail", f"{host.model}: {answer}", fix))
            continue
        served.append(answer)
        counted.append(min(MAX_SLOTS, host.slots or answer.slots or 1))
        slots = counted[-1]
        if host.slots:
            said = "slots (set in `hosts`)"
        else:
            said = "slots" if answer.slots else "slot (not reported: taken at one)"
        window = f"context {answer.context_length}" if answer.context_length else "context ?"
        tools = "" if "tools" in answer.capabilities else ", no tool calls"
        detail = f"{answer.name}: {window}, {slots} {said}{tools}"
        report.append((host.url, "warn" if tools else "ok", detail, ""))
    names = {i.name for i in served}
    windows = {i.context_length for i in served}
    if len(names) > 1:
        listing = ", ".join(sorted(names))
        report.append(("match", "warn", f"the servers serve different models: {listing}", ""))
    elif len(windows) > 1:
        least = min(w for w in windows if w) if any(windows) else None
        report.append(
            ("match", "warn", f"the windows differ; rift uses the smallest ({least})", "")
        )
    elif served:
        total = sum(counted)
        said = f"same model and window on every server; {total} slots in all"
        report.append(("match", "ok", said, ""))
    return report

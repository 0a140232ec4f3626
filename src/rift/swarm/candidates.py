"""Candidates: who races, how many at once, and one candidate's run in its worktree.

A candidate is a whole headless agent brought up by the core, as `rift -p` is, with its
project directory set to its own worktree: instructions, skills, sandbox and write limits
all come from there. Whoever starts the race hands it the core's `start_candidate`, so the
swarm never imports the core. Its events reach the race as sub-agent events.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from msgspec import Struct, field
from msgspec.structs import replace

from rift.config.load import Config
from rift.errors import ModelError
from rift.events import (
    Content,
    Done,
    EditDiff,
    Event,
    Info,
    SubagentActivity,
    SubagentFinished,
    SubagentStarted,
    ToolResult,
    ToolStart,
    Warning,
)
from rift.models.registry import EMBEDDED
from rift.tools.calls import describe_call

EXPLORE_TEMPERATURE = 0.8
"""`--explore` adds a copy of each model sampling at this temperature."""


class CandidateState(Protocol):
    """What a race reads of a candidate's conversation state (`ConversationState`)."""

    @property
    def model(self) -> str: ...


class CandidateConversation(Protocol):
    """What a race drives of a candidate's conversation (the core's `Conversation`)."""

    @property
    def state(self) -> CandidateState: ...
    async def run(self, text: str) -> Done | None: ...
    async def close(self) -> None: ...


class StartedCandidate(Protocol):
    """A candidate brought up: its conversation, and the notices met on the way."""

    @property
    def conversation(self) -> CandidateConversation: ...
    @property
    def notices(self) -> Sequence[Event]: ...


StartCandidate = Callable[[Config, Callable[[Event], None], int], Awaitable[StartedCandidate]]
"""Brings up one candidate headless in `config.cwd` (its worktree), events to the callable,
pinned to the server slot given; raises ModelError when its model cannot be reached. The
core's is `rift.core.start_candidate`, passed down by whoever starts the race."""


class CandidateSpec(Struct, frozen=True):
    """One entrant: its name (`<ordinal>-<model>`), model and sampling temperature."""

    name: str
    model: str
    temperature: float | None = None
    """None: the configured temperature."""


class CandidateResult(Struct, dict=True):
    """What one candidate did: filled by its run, then by patch capture and the judges."""

    spec: CandidateSpec
    outcome: str = "error"
    """The turn's `done.outcome` ("answered", "stopped", ...), or "error" when it never ran."""
    reason: str = ""
    summary: str = ""
    """The candidate's own final reply, which the chat judge reads beside its diff."""
    steps: int = 0
    prompt_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    patch: Path | None = None
    patch_bytes: int = 0
    tests: Any = None
    """The tests judge's `SuiteRun` for this candidate, when that judge ran."""
    activity: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.spec.name


def candidate_name(ordinal: int, model: str) -> str:
    """`<ordinal>-<model>` with every character outside [A-Za-z0-9.-] turned into `-`."""
    return f"{ordinal}-{re.sub(r'[^A-Za-z0-9.-]', '-', model)}"


def plan(models: Sequence[str], attempts: int, explore: bool) -> list[CandidateSpec]:
    """Every candidate of a race, in the order they start: each model once per attempt,
    with (for `explore`) a hot copy of each after it."""
    heats: tuple[float | None, ...] = (None, EXPLORE_TEMPERATURE) if explore else (None,)
    entries = [(m, t) for _ in range(max(1, attempts)) for m in models for t in heats]
    return [CandidateSpec(candidate_name(i, m), m, t) for i, (m, t) in enumerate(entries)]


def is_embedded(model: str) -> bool:
    return model == EMBEDDED or model.startswith(EMBEDDED + "/")


async def max_parallel(config: Config, models: Sequence[str], requested: int | None) -> int:
    """How many candidates may run at once: one for the embedded model (it runs in this
    process), else `--parallel`, else what the servers report, else one (a single slot
    would only queue the requests, and each candidate would look slower than it is)."""
    if any(is_embedded(m) for m in models):
        return 1
    if requested is not None:
        return max(1, requested)
    return max(1, await reported_slots(config, models) or 1)


async def reported_slots(config: Config, models: Sequence[str]) -> int | None:
    """The parallel requests a server pool (`hosts`) serves: the sum of its servers' slots
    (an entry's `slots`, else `/props` `total_slots`, else 1; at most 64 each). None when
    unknown: a single host is not asked."""
    if not config.hosts or any("/" in m for m in models):
        return None
    from rift.models.http import make_client
    from rift.models.server_info import llama_props

    async with make_client(5.0, connect_timeout=5.0) as client:
        props = await asyncio.gather(*(llama_props(client, h.url) for h in config.hosts))
    return sum(
        min(64, h.slots or (p.total_slots if p else None) or 1)
        for h, p in zip(config.hosts, props, strict=True)
    )


class CandidateRun(Struct, dict=True):
    """Everything one candidate's run needs from the race."""

    spec: CandidateSpec
    task: str
    config: Config
    """The race's config: the candidate's is this one moved into its worktree."""
    cwd: Path
    """Where the candidate works: its worktree (or the same subdirectory of it)."""
    emit: Callable[[Event], None]
    serial: asyncio.Lock
    """Held for the turn when the model turned out to be the embedded one (the fallback
    when no server answers), which runs one generation at a time."""
    start: StartCandidate
    slot: int = 1
    """The server slot its conversation pins (1…, never the racing conversation's 0)."""


async def run_candidate(run: CandidateRun) -> CandidateResult:
    """Run one candidate headless in its worktree; failures end up in the result."""
    spec = run.spec
    result = CandidateResult(spec)
    relay = _Relay(spec.name, run.emit, result)
    config = replace(
        run.config,
        cwd=run.cwd,
        model=spec.model,
        temperature=run.config.temperature if spec.temperature is None else spec.temperature,
        warnings=(),
    )
    started_at = time.monotonic()
    run.emit(SubagentStarted(tag=spec.name, model=spec.model, label=_label(spec, run.task)))
    try:
        started = await run.start(config, relay, run.slot)
    except ModelError as exc:
        result.reason = str(exc).splitlines()[0]
        relay.line(f"error: {result.reason}", warn=True)
        run.emit(SubagentFinished(tag=spec.name, steps=0))
        return result
    conversation = started.conversation
    for notice in started.notices:
        relay(notice)
    done = None
    try:
        embedded = is_embedded(conversation.state.model)
        async with run.serial if embedded else contextlib.nullcontext():
            done = await conversation.run(run.task)
    finally:
        await conversation.close()  # on cancel too: the turn's commands die with it
        result.seconds = time.monotonic() - started_at
    if done is not None:
        result.outcome, result.reason = done.outcome, done.reason
        result.steps = done.stats.iterations
        result.prompt_tokens = done.stats.prompt_tokens
        result.output_tokens = done.stats.output_tokens
    result.summary = "".join(relay.reply).strip()
    run.emit(SubagentFinished(tag=spec.name, steps=result.steps))
    return result


def _label(spec: CandidateSpec, task: str) -> str:
    heat = "" if spec.temperature is None else f" (temperature {spec.temperature})"
    first = task.strip().splitlines()[0] if task.strip() else ""
    return f"{spec.model}{heat}: {first[:60]}"


class _Relay:
    """A candidate's core events as `subagent` activity lines; its reply is kept."""

    def __init__(self, tag: str, emit: Callable[[Event], None], result: CandidateResult):
        self.tag, self.emit, self.result = tag, emit, result
        self.reply: list[str] = []

    def line(self, text: str, warn: bool = False) -> None:
        self.result.activity.append(text)
        self.emit(SubagentActivity(tag=self.tag, text=text, warn=warn))

    def __call__(self, event: Event) -> None:
        if isinstance(event, Content):
            self.reply.append(event.text)
        elif isinstance(event, ToolStart):
            self.line(f"→ {event.tool} {describe_call(event.tool, event.args).summary[:80]}")
        elif isinstance(event, ToolResult):
            first = event.preview.splitlines()[0] if event.preview else ""
            mark = "✓" if event.ok else "✗"
            self.line(f"{mark} {event.tool}: {first}"[:200], warn=not event.ok)
        elif isinstance(event, EditDiff):
            self.line(f"  {event.path} +{event.added} -{event.removed}")
        elif isinstance(event, Warning):
            self.line(f"warning: {event.text}", warn=True)
        elif isinstance(event, Info):
            self.line(event.text)

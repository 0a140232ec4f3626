"""Sub-agents: child turns that run concurrently on delegated tasks.

A child has its own conversation, plan, undo journal and token meter, but it
shares the parent's permission gate, so its writes meet the same rules, the
same approval flag and the same interaction broker: a child's ask or
edit_review reaches the person with an id from the one counter. Children get
no `agent` tool, so they cannot nest. Their activity reaches the front end as
`subagent*` events tagged a1, a2, …; their final report is the tool result.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, Protocol

from msgspec import Struct, field
from msgspec.structs import replace

from rift.config.load import Config
from rift.core.context.budget import TokenMeter
from rift.core.context.prompt import SUBAGENT_SUFFIX
from rift.core.loop.setup import TurnSetup
from rift.errors import ModelError, ToolError
from rift.events import (
    Event,
    Info,
    SubagentActivity,
    SubagentFinished,
    SubagentStarted,
    ToolResult,
    ToolStart,
    Warning,
)
from rift.fs.checkpoints import UndoJournal
from rift.models.base import Message
from rift.tools.base import PlanState, Tool, ToolContext
from rift.tools.delegation import MAX_TASKS, ChildTask, Persona, parse_tasks

__all__ = ["MAX_TASKS", "NO_REPORT", "ChildTask", "Persona", "SubagentRunner", "parse_tasks"]

NO_REPORT = "(the sub-agent finished without a final report)"


class AgentTasks(Protocol):
    """The task registry a background sub-agent runs in (core/conversation/tasks.py)."""

    def start_agent(self, label: str, work: Coroutine[Any, Any, str]) -> int:
        """Run `work` as a task labelled `label`; its report becomes the task output."""
        ...


class SubagentRunner(Struct, dict=True):
    """Spawns children on behalf of one root agent; installed as ctx.services.subagents."""

    config: Config
    parent_setup: Callable[[], TurnSetup]
    """The parent's current turn setup (model, tools, ctx), read at spawn time."""
    bind: Callable[[str], Any]
    """async (model name) → ModelBinding, for children on another model or role."""
    emit: Callable[[Event], None]
    system_prompt: Callable[[], str]
    """The parent's current system prompt; children get it plus a report request."""
    tasks: AgentTasks | None = None
    """Where a background child runs (the core's TaskRegistry); None: only foreground."""
    personas: Mapping[str, Persona] = field(default_factory=dict)
    _tags: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    _slots: asyncio.Queue[int | None] | None = None
    """The server slots children may take, one each while it runs (llama.cpp's ids 1…,
    slot 0 staying with the parent; None entries where there is no slot of their own)."""

    async def run(self, tasks: list[ChildTask], background: bool) -> str:
        prepared = [await self._prepare(t) for t in tasks]
        slots = self.parent_setup().slots
        width = child_width(slots)
        if width is not None and self._slots is None:
            self._slots = asyncio.Queue()
            for slot in child_slots(slots):
                self._slots.put_nowait(slot)
        if width is not None and len(tasks) > width:
            self.emit(
                Info(
                    f"the model server runs {width + 1} requests at once: {len(tasks)} sub-agents"
                    f" take turns, {width} at a time, and this conversation keeps its slot"
                )
            )
        if background:
            registry = self.tasks
            if registry is None:
                raise ToolError("background tasks are not available here")
            ids = [
                registry.start_agent(t.description, self._child(t, setup)) for t, setup in prepared
            ]
            listing = ", ".join(f"#{i} — {t.description}" for i, t in zip(ids, tasks, strict=True))
            return (
                f"launched {len(ids)} background agent(s): {listing}. Their reports arrive"
                " as task output; read them with the task tool."
            )
        reports = await asyncio.gather(*(self._child(t, s) for t, s in prepared))
        if len(reports) == 1:
            return reports[0]
        return "\n\n".join(
            f"### agent {i} — {t.description}\n{r}"
            for i, (t, r) in enumerate(zip(tasks, reports, strict=True), 1)
        )

    async def _prepare(self, task: ChildTask) -> tuple[ChildTask, TurnSetup]:
        """Resolve persona, model and tools before anything runs (routing errors fail early)."""
        parent = self.parent_setup()
        persona = None
        if task.agent:
            persona = self.personas.get(task.agent)
            if persona is None:
                known = ", ".join(sorted(self.personas)) or "(none)"
                raise ToolError(f"unknown agent persona '{task.agent}'. Known: {known}")
        model = task.model or (persona.model if persona else None)
        provider, wire, num_ctx, think = parent.provider, parent.model, parent.num_ctx, parent.think
        if model:
            name = self.config.models.get(model, model)
            try:
                binding = await self.bind(name)
            except ModelError as exc:
                raise ToolError(f"sub-agent model '{model}' is not usable: {exc}") from exc
            provider, wire = binding.provider, binding.route.wire_model
            num_ctx, think = binding.info.num_ctx, binding.info.think
        tools: dict[str, Tool] = {n: t for n, t in parent.tools.items() if n != "agent"}
        if persona and persona.tools is not None:
            tools = {n: t for n, t in tools.items() if n in persona.tools}
        ctx = ToolContext(
            cwd=parent.ctx.cwd,
            gate=parent.ctx.gate,
            journal=UndoJournal(),
            plan=PlanState(),
            bash_wrapper=parent.ctx.bash_wrapper,
            sandbox=parent.ctx.sandbox,
            post_edit_hooks=parent.ctx.post_edit_hooks,
            services=parent.ctx.services.without_subagents(),
        )
        setup = TurnSetup(
            provider=provider,
            model=wire,
            num_ctx=num_ctx,
            temperature=parent.temperature,
            think=think,
            tools=tools,
            ctx=ctx,
            meter=TokenMeter(),
            max_iterations=parent.max_iterations,
            lean_schema=parent.lean_schema,
            slots=parent.slots if provider is parent.provider else None,
        )
        return (
            task
            if not persona
            else ChildTask(task.description, f"{persona.body}\n\n{task.prompt}", model, task.agent)
        ), setup

    async def _child(self, task: ChildTask, setup: TurnSetup) -> str:
        """Run a child once a slot is free; it pins that slot on the parent's server."""
        if self._slots is None:
            return await self._child_run(task, setup)
        slot = await self._slots.get()
        try:
            if setup.slots:  # the parent's server: a child on another model pins nothing
                setup = replace(setup, slot=slot)
            return await self._child_run(task, setup)
        finally:
            self._slots.put_nowait(slot)

    async def _child_run(self, task: ChildTask, setup: TurnSetup) -> str:
        tag = f"a{next(self._tags)}"
        self.emit(SubagentStarted(tag=tag, model=setup.model, label=task.description))
        system = self.system_prompt() + SUBAGENT_SUFFIX
        messages: list[Message] = [{"role": "system", "content": system}]
        from rift.core.loop.turn import Turn  # the loop loads with the first prompt (setup.py)

        turn = Turn(setup, messages, _relay(tag, self.emit))
        stats = None
        try:
            stats = await turn.run(task.prompt)
        except ModelError as exc:
            self.emit(SubagentActivity(tag=tag, text=f"error: {exc}", warn=True))
            return f"ERROR: sub-agent failed: {exc}"
        finally:
            self.emit(SubagentFinished(tag=tag, steps=stats.iterations if stats else 0))
        return _final_report(messages)


def child_width(slots: int | None) -> int | None:
    """How many sub-agents may run at once on a server with `slots` slots: one slot stays
    with the parent conversation (its cached prompt is not evicted); None when unknown."""
    if not slots:
        return None
    return max(1, slots - 1)


def child_slots(slots: int | None) -> list[int | None]:
    """The slot each concurrent child pins: 1 … slots-1 (0 is the parent's); with a single
    slot, one child at a time and nothing to pin (it can only share the parent's)."""
    if not slots:
        return []
    if slots == 1:
        return [None]
    return list(range(1, slots))


def _relay(tag: str, emit: Callable[[Event], None]) -> Callable[[Event], None]:
    """A child's turn events become one-line `subagent` activity events."""

    def relay(event: Event) -> None:
        if isinstance(event, ToolStart):
            from rift.tools.calls import describe_call  # with the first child's tool call

            summary = describe_call(event.tool, event.args).summary[:80]
            emit(SubagentActivity(tag=tag, text=f"→ {event.tool} {summary}", warn=False))
        elif isinstance(event, ToolResult):
            mark = "✓" if event.ok else "✗"
            emit(SubagentActivity(tag=tag, text=f"{mark} {event.tool}", warn=not event.ok))
        elif isinstance(event, Warning):
            emit(SubagentActivity(tag=tag, text=event.text, warn=True))

    return relay


def _final_report(messages: list[Message]) -> str:
    for message in reversed(messages):
        text = str(message["content"]).strip()
        if message["role"] == "assistant" and text:
            return text
    return NO_REPORT

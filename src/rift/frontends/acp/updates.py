"""The core's events as ACP `session/update`s.

`Translator.feed` runs inside the core's synchronous `emit`. It reads only the events,
never a file or the conversation, so a replayed session renders exactly like a live one."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    tool_terminal_ref,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
)
from acp.schema import PlanEntry, ToolCallLocation, ToolCallStatus, ToolKind, UsageUpdate
from msgspec import Struct, field

from rift.core import describe_call
from rift.events import (
    Ask,
    Content,
    ContextGauge,
    DiffRegion,
    Done,
    EditDiff,
    Event,
    Info,
    Plan,
    Thinking,
    ToolResult,
    ToolStart,
    Warning,
)
from rift.frontends.acp.swarm import SWARM_EVENTS, SwarmUpdates

log = logging.getLogger("rift.acp")

TITLE_CHARS = 120
"""A card title past this is cut (a long command would fill the editor's panel)."""
RESULT_CHARS = 8000


class ToolCallState(Struct, dict=True):
    """One open tool call as the editor knows it."""

    id: str
    tool: str
    title: str
    kind: ToolKind
    asks: bool = False
    """The call waits for approval: its card stays `pending` until the person allows it."""
    path: Path | None = None
    proposal: list[Any] = field(default_factory=list)
    """The proposed diff (from the ask), shown with the permission request."""
    running: bool = False
    terminal_id: str | None = None


class PermissionItem(Struct, frozen=True):
    """An ask to forward as `session/request_permission` (not a notification)."""

    ask: Ask
    call: ToolCallState | None


Outgoing = Any
"""A session update model, or a PermissionItem."""


class Translator(Struct, dict=True):
    """Per-session event → update state; see the module docstring."""

    cwd: Path
    may_ask: Callable[[str], bool]
    """Whether a gated tool may wait for approval in the session's mode now."""
    current: ToolCallState | None = None
    speak_notices: bool = False
    """While a `/command` runs, its info and warnings are the agent's message."""
    swarm: SwarmUpdates = field(default_factory=SwarmUpdates)
    _count: int = 0
    _held: tuple[ToolCallState, ToolResult] | None = None
    """A write/edit that succeeded, completed once its `edit_diff` arrives."""

    def feed(self, event: Event) -> list[Outgoing]:
        if isinstance(event, EditDiff):
            return self._diff(event)
        out = self._release()
        if isinstance(event, SWARM_EVENTS):
            out += self.swarm.feed(event)
        elif isinstance(event, Content):
            out.append(update_agent_message_text(event.text))
        elif isinstance(event, Thinking):
            out.append(update_agent_thought_text(event.text))
        elif isinstance(event, ToolStart):
            out += self._start(event)
        elif isinstance(event, ToolResult):
            out += self._result(event)
        elif isinstance(event, Ask):
            out += self._ask(event)
        elif isinstance(event, Plan):
            out.append(update_plan(_plan_entries(event)))
        elif isinstance(event, ContextGauge):
            usage = UsageUpdate(session_update="usage_update", used=event.used, size=event.limit)
            out.append(usage)
        elif isinstance(event, Done) and event.outcome == "stopped":
            # the reason is the agent's last words, not a refusal
            out.append(update_agent_message_text(f"\n\n[rift stopped this turn: {event.reason}]"))
        elif isinstance(event, Warning | Info):
            out += self._notice(event)
        return out

    def finish(self) -> list[Outgoing]:
        """The turn ended (or was cancelled): complete what waits, fail what is still open."""
        out = self._release()
        call, self.current = self.current, None
        if call is not None:
            out.append(update_tool_call(call.id, status="failed"))
        return out

    def running(self, terminal_id: str | None = None) -> list[Outgoing]:
        """The open call passed its gate and is running now."""
        call = self.current
        if call is None or (call.running and terminal_id is None):
            return []
        call.running = True
        content = None
        if terminal_id is not None:
            call.terminal_id = terminal_id
            content = [tool_terminal_ref(terminal_id)]
        return [update_tool_call(call.id, status="in_progress", content=content)]

    def _notice(self, event: Warning | Info) -> list[Outgoing]:
        log.log(logging.WARNING if isinstance(event, Warning) else logging.INFO, "%s", event.text)
        return [update_agent_message_text(event.text + "\n")] if self.speak_notices else []

    def _start(self, event: ToolStart) -> list[Outgoing]:
        self._count += 1
        args = event.args
        described = describe_call(event.tool, args)
        title = described.title
        call = ToolCallState(
            id=f"call_{self._count}",
            tool=event.tool,
            title=title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…",
            kind=described.kind,
            asks=described.asks,
        )
        raw = args.get("path")
        locations: list[ToolCallLocation] = []
        if isinstance(raw, str) and raw:
            call.path = self._resolve(raw)
            line = args.get("offset") if event.tool == "read" else None
            line = line if isinstance(line, int) and line > 0 else None
            locations.append(ToolCallLocation(path=str(call.path), line=line))
        self.current = call
        out: list[Outgoing] = [
            start_tool_call(
                call.id,
                call.title,
                kind=call.kind,
                status="pending",
                locations=locations or None,
                raw_input=args,
            )
        ]
        if not call.asks or not self.may_ask(event.tool):
            out += self.running()
        return out

    def _ask(self, event: Ask) -> list[Outgoing]:
        """The proposed diff joins the call's card, then the permission request goes out."""
        call = self.current
        if call is not None and not call.asks:
            call = None  # a sub-agent's or an extension's ask: not this call's own
        if call is None or call.path is None or call.kind != "edit":
            return [PermissionItem(event, call)]
        from rift.core import preview_region  # the core reads its own preview format

        diff, line = _diff_content(call.path, preview_region(event.detail))
        call.proposal = [diff]
        where = [ToolCallLocation(path=str(call.path), line=line)]
        return [
            update_tool_call(call.id, content=call.proposal, locations=where),
            PermissionItem(event, call),
        ]

    def _result(self, event: ToolResult) -> list[Outgoing]:
        call, self.current = self.current, None
        if call is None:
            return []
        if event.ok and call.kind == "edit" and call.path is not None:
            self._held = (call, event)  # its edit_diff comes next
            return []
        return [self._completed(call, event)]

    def _completed(self, call: ToolCallState, event: ToolResult) -> Outgoing:
        status: ToolCallStatus = "completed" if event.ok else "failed"
        text = event.output or event.preview
        if call.terminal_id is not None:
            return update_tool_call(call.id, status=status, raw_output=text)
        shown = text
        if len(shown) > RESULT_CHARS:
            shown = shown[:RESULT_CHARS] + f"\n… [{len(shown) - RESULT_CHARS} more characters]"
        if call.kind == "execute":
            shown = f"```\n{shown}\n```"
        return update_tool_call(
            call.id, status=status, content=[tool_content(text_block(shown))], raw_output=text
        )

    def _diff(self, event: EditDiff) -> list[Outgoing]:
        held, self._held = self._held, None
        if held is None:
            return []
        call, result = held
        if not event.diff:  # the file already held that text: nothing to show as a diff
            return [self._completed(call, result)]
        path = self._resolve(event.path)
        diff, line = _diff_content(path, event.region)
        return [
            update_tool_call(
                call.id,
                status="completed",
                content=[diff],
                locations=[ToolCallLocation(path=str(path), line=line)],
                raw_output=result.output or result.preview,
            )
        ]

    def _release(self) -> list[Outgoing]:
        """A held write/edit whose diff never came (nothing changed): complete it as text."""
        held, self._held = self._held, None
        return [self._completed(*held)] if held is not None else []

    def _resolve(self, raw: str) -> Path:
        path = Path(raw).expanduser()
        return path if path.is_absolute() else self.cwd / path


def _plan_entries(event: Plan) -> list[PlanEntry]:
    """Done items completed, the first open one in progress, the rest pending."""
    current = next((i for i, item in enumerate(event.items) if not item.done), -1)
    return [
        plan_entry(
            item.text,
            status="completed" if item.done else "in_progress" if i == current else "pending",
        )
        for i, item in enumerate(event.items)
    ]


def _diff_content(path: Path, region: DiffRegion) -> tuple[Any, int]:
    """An ACP diff from the core's changed region, and the line it starts at."""
    new = "".join(f"{x}\n" for x in region.new)
    old = None if region.created else "".join(f"{x}\n" for x in region.old)
    return tool_diff_content(str(path), new, old), region.start

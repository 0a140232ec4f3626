"""The core's events as ACP `session/update`s.

`Translator.feed` runs inside the core's synchronous `emit`, at the moment
each event happens, and returns what the editor should be sent. Doing the
work there (not later, when the update is written) is what makes the diffs
honest: a write's "before" text is read when its tool call starts and its
"after" text when it ends, before the next tool call can touch the file.

Tool calls run one at a time, so a `tool_result` always closes the call the
last `tool_start` opened; each gets an id of its own (`call_<n>`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
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

from rift.core.events import (
    Ask,
    Content,
    ContextGauge,
    Event,
    Info,
    Plan,
    Thinking,
    ToolResult,
    ToolStart,
    Warning,
)
from rift.errors import ToolError
from rift.models.base import Message
from rift.tools.edit import replace

log = logging.getLogger("rift.acp")

KINDS: dict[str, ToolKind] = {
    "read": "read",
    "ls": "read",
    "outline": "read",
    "repo_map": "read",
    "write": "edit",
    "edit": "edit",
    "bash": "execute",
    "grep": "search",
    "glob": "search",
    "fetch": "fetch",
    "web_search": "fetch",
    "plan": "think",
}
GATED = frozenset({"write", "edit", "bash"})
"""Tools that may wait for approval: they stay `pending` until it is given."""
RESULT_CHARS = 8000
DIFF_READ_LIMIT = 2_000_000
STOP_PREFIX = "stopping the turn"
ERROR_PREFIX = "error:"


@dataclass
class ToolCallState:
    """One open tool call as the editor knows it."""

    id: str
    tool: str
    title: str
    kind: ToolKind
    path: Path | None = None
    old: str | None = None
    """The file's text when the call started (write/edit); None for a new file."""
    proposal: list[Any] = field(default_factory=list)
    """The proposed diff, shown with the permission request."""
    running: bool = False
    terminal_id: str | None = None


@dataclass(frozen=True, slots=True)
class PermissionItem:
    """An ask to forward as `session/request_permission` (not a notification)."""

    ask: Ask
    call: ToolCallState | None


Outgoing = Any
"""A session update model, or a PermissionItem."""


@dataclass
class TurnFacts:
    """What the events of one turn said about how it ended."""

    error: str | None = None


@dataclass
class Translator:
    """Per-session event → update state; see the module docstring."""

    cwd: Path
    last_message: Callable[[], Message | None]
    """The newest conversation message (the full text of the tool result just emitted)."""
    may_ask: Callable[[str], bool]
    """Whether a gated tool may wait for approval in the session's mode now."""
    written: MutableMapping[Path, str] = field(default_factory=dict)
    """Texts the editor wrote for us (fs delegation), by path, until their call ends."""
    buffers: MutableMapping[Path, str] = field(default_factory=dict)
    """Texts the editor returned for reads (fs delegation): an edit's real "before"."""
    current: ToolCallState | None = None
    facts: TurnFacts = field(default_factory=TurnFacts)
    last_warning: str = ""
    speak_notices: bool = False
    """While a `/command` runs, its info and warnings are the agent's message."""
    _count: int = 0

    def begin_turn(self) -> None:
        self.facts = TurnFacts()

    def feed(self, event: Event) -> list[Outgoing]:
        if isinstance(event, Content):
            return [update_agent_message_text(event.text)]
        if isinstance(event, Thinking):
            return [update_agent_thought_text(event.text)]
        if isinstance(event, ToolStart):
            return self._start(event)
        if isinstance(event, ToolResult):
            return self._result(event)
        if isinstance(event, Ask):
            return [PermissionItem(event, self.current)]
        if isinstance(event, Plan):
            return [update_plan(_plan_entries(event))]
        if isinstance(event, ContextGauge):
            return [UsageUpdate(session_update="usage_update", used=event.used, size=event.limit)]
        if isinstance(event, Warning) and event.text.startswith(STOP_PREFIX):
            self._warning(event.text)  # the reason is the agent's last words, not a refusal
            return [update_agent_message_text(f"\n\n[rift is {event.text}]")]
        if isinstance(event, Warning):
            self._warning(event.text)
        elif isinstance(event, Info):
            log.info("%s", event.text)
        if self.speak_notices and isinstance(event, Warning | Info):
            return [update_agent_message_text(event.text + "\n")]
        return []

    def finish(self) -> list[Outgoing]:
        """The turn ended (or was cancelled) with a call still open: it failed."""
        call, self.current = self.current, None
        if call is None:
            return []
        return [update_tool_call(call.id, status="failed")]

    def running(self, terminal_id: str | None = None) -> list[Outgoing]:
        """The open call passed its gate and is running now."""
        call = self.current
        if call is None or (call.running and terminal_id is None):
            return []
        call.running = True
        if terminal_id is not None:
            call.terminal_id = terminal_id
            return [
                update_tool_call(
                    call.id, status="in_progress", content=[tool_terminal_ref(terminal_id)]
                )
            ]
        return [update_tool_call(call.id, status="in_progress")]

    # -------------------------------------------------------------- internals

    def _warning(self, text: str) -> None:
        self.last_warning = text
        if text.startswith(ERROR_PREFIX) and self.facts.error is None:
            self.facts.error = text[len(ERROR_PREFIX) :].strip()
        log.warning("%s", text)

    def _start(self, event: ToolStart) -> list[Outgoing]:
        self._count += 1
        args = event.args
        call = ToolCallState(
            id=f"call_{self._count}",
            tool=event.tool,
            title=_title(event.tool, args),
            kind=KINDS.get(event.tool, "other"),
        )
        raw = args.get("path")
        locations: list[ToolCallLocation] = []
        if isinstance(raw, str) and raw:
            call.path = self._resolve(raw)
            line = args.get("offset") if event.tool == "read" else None
            line = line if isinstance(line, int) and line > 0 else None
            locations.append(ToolCallLocation(path=str(call.path), line=line))
        if event.tool in ("write", "edit") and call.path is not None:
            self.written.pop(call.path, None)
            self.buffers.pop(call.path, None)
            call.old = _read_text(call.path)
            proposed = _proposed(event.tool, args, call.old)
            if proposed is not None:
                call.proposal = [tool_diff_content(str(call.path), proposed, call.old)]
        self.current = call
        out: list[Outgoing] = [
            start_tool_call(
                call.id,
                call.title,
                kind=call.kind,
                status="pending",
                content=call.proposal or None,
                locations=locations or None,
                raw_input=args,
            )
        ]
        if event.tool not in GATED or not self.may_ask(event.tool):
            out += self.running()
        return out

    def _result(self, event: ToolResult) -> list[Outgoing]:
        call, self.current = self.current, None
        if call is None:
            return []
        status: ToolCallStatus = "completed" if event.ok else "failed"
        if event.ok and call.tool in ("write", "edit") and call.path is not None:
            new = self.written.pop(call.path, None)
            if new is None:
                new = _read_text(call.path) or ""
            old = self.buffers.pop(call.path, call.old)
            line = _first_changed_line(old, new)
            return [
                update_tool_call(
                    call.id,
                    status=status,
                    content=[tool_diff_content(str(call.path), new, old)],
                    locations=[ToolCallLocation(path=str(call.path), line=line)],
                    raw_output=self._result_text(event),
                )
            ]
        text = self._result_text(event)
        if call.terminal_id is not None:
            return [update_tool_call(call.id, status=status, raw_output=text)]
        shown = f"```\n{text}\n```" if call.kind == "execute" else text
        return [
            update_tool_call(
                call.id,
                status=status,
                content=[tool_content(text_block(shown))],
                raw_output=text,
            )
        ]

    def _result_text(self, event: ToolResult) -> str:
        message = self.last_message()
        text = event.preview
        if message is not None and message.get("role") == "tool":
            text = str(message.get("content") or text)
        if len(text) > RESULT_CHARS:
            text = text[:RESULT_CHARS] + f"\n… [{len(text) - RESULT_CHARS} more characters]"
        return text

    def _resolve(self, raw: str) -> Path:
        path = Path(raw).expanduser()
        return path if path.is_absolute() else self.cwd / path


def _title(tool: str, args: dict[str, Any]) -> str:
    path = args.get("path") if isinstance(args.get("path"), str) else None
    if tool == "read" and path:
        offset = args.get("offset")
        return f"Read {path}" + (f" (from line {offset})" if offset else "")
    if tool in ("write", "edit") and path:
        return f"{tool.capitalize()} {path}"
    if tool == "bash" and isinstance(args.get("command"), str):
        command = str(args["command"]).strip()
        return command if len(command) <= 120 else command[:119] + "…"
    if tool == "grep" and isinstance(args.get("pattern"), str):
        return f"Search for '{args['pattern']}'" + (f" in {path}" if path else "")
    if tool == "glob" and isinstance(args.get("pattern"), str):
        return f"Find {args['pattern']}"
    if tool == "ls":
        return f"List {path or '.'}"
    if tool == "plan":
        return "Update the plan"
    return tool


def _plan_entries(event: Plan) -> list[PlanEntry]:
    entries: list[PlanEntry] = []
    current_seen = False
    for item in event.items:
        if item.done:
            entries.append(plan_entry(item.text, status="completed"))
        elif not current_seen:
            current_seen = True
            entries.append(plan_entry(item.text, status="in_progress"))
        else:
            entries.append(plan_entry(item.text, status="pending"))
    return entries


def _read_text(path: Path) -> str | None:
    """A text file's contents for a diff; None when missing, too large or binary."""
    try:
        if path.stat().st_size > DIFF_READ_LIMIT:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def _proposed(tool: str, args: dict[str, Any], old: str | None) -> str | None:
    """The text a write/edit asks to leave in the file, when it can be worked out."""
    if tool == "write":
        content = args.get("content")
        return content if isinstance(content, str) else None
    old_string, new_string = args.get("old_string"), args.get("new_string")
    if old is None or not isinstance(old_string, str) or not isinstance(new_string, str):
        return None
    try:
        return replace("", old, old_string, new_string, args.get("replace_all") is True)[0]
    except ToolError:
        return None  # the edit will fail and say why


def _first_changed_line(old: str | None, new: str) -> int:
    """1-based line of the first difference, for the editor's follow-along."""
    if not old:
        return 1
    for n, (a, b) in enumerate(zip(old.splitlines(), new.splitlines(), strict=False), 1):
        if a != b:
            return n
    return min(len(old.splitlines()), len(new.splitlines())) + 1

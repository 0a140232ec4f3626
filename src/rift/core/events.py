"""The core's events: one frozen dataclass per serve-protocol event.

Field names are the wire names, and `to_wire` is the one serializer, so the
serve loop, the headless printer, the TUI and the ACP adapter all describe a
turn with the same facts. `EVENT_TYPES` is the registry the protocol docs and
the conformance suite's golden files are checked against.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

PROTOCOL_VERSION = 1


@dataclass(frozen=True, slots=True)
class Event:
    """Base class; `name` is the wire `event` value."""

    name: ClassVar[str] = ""


# ---------------------------------------------------------------- turn flow


@dataclass(frozen=True, slots=True)
class Iteration(Event):
    """Agent-loop iteration counter within the turn."""

    name: ClassVar[str] = "iteration"
    n: int


@dataclass(frozen=True, slots=True)
class Thinking(Event):
    """Streamed reasoning (thinking models only)."""

    name: ClassVar[str] = "thinking"
    text: str


@dataclass(frozen=True, slots=True)
class Content(Event):
    """Streamed assistant reply text."""

    name: ClassVar[str] = "content"
    text: str


@dataclass(frozen=True, slots=True)
class ToolStart(Event):
    """A tool call begins; `args` is the arguments object ({"raw": text} when not JSON)."""

    name: ClassVar[str] = "tool_start"
    tool: str = field(metadata={"wire": "name"})
    args: dict[str, Any]
    id: str = ""
    """The model's call id (additive): pairs this start with its `tool_result`."""


@dataclass(frozen=True, slots=True)
class ToolResult(Event):
    """A tool finished; `preview` is a short excerpt of its result.

    `id` and `output` are additive: the call id of the matching `tool_start` and
    the result as the model saw it, capped at 16,000 characters, so front
    ends can show full output without re-reading files or the conversation.
    """

    name: ClassVar[str] = "tool_result"
    tool: str = field(metadata={"wire": "name"})
    ok: bool
    preview: str
    id: str = ""
    output: str = ""


@dataclass(frozen=True, slots=True)
class EditDiff(Event):
    """A write/edit was applied: capped ± preview, emitted right after its tool_result."""

    name: ClassVar[str] = "edit_diff"
    path: str
    added: int
    removed: int
    diff: list[str]


@dataclass(frozen=True, slots=True)
class PlanItem:
    text: str
    done: bool


@dataclass(frozen=True, slots=True)
class Plan(Event):
    """The agent's live checklist; replaces the previous plan."""

    name: ClassVar[str] = "plan"
    items: list[PlanItem]


@dataclass(frozen=True, slots=True)
class TurnStats:
    iterations: int = 0
    prompt_tokens: int = 0
    billed_prompt_tokens: int = 0
    output_tokens: int = 0
    duration_ms: int = 0
    tokens_per_sec: float = 0.0


@dataclass(frozen=True, slots=True)
class Done(Event):
    """Always ends a turn, success or error.

    `outcome` and `reason` are additive: how the turn ended (one of `OUTCOMES`)
    and, unless it was answered, why in words, so front ends never parse
    warning text to learn it.
    """

    name: ClassVar[str] = "done"
    stats: TurnStats = field(default_factory=TurnStats)
    outcome: str = "answered"
    reason: str = ""


OUTCOMES = ("answered", "stopped", "cancelled", "wrapped", "error")
"""answered: the model replied; stopped: a stopping rule ended the turn (repeated
failures); cancelled: the user cancelled; wrapped: the iteration budget ran out;
error: the model call failed."""


# -------------------------------------------------------------- interaction


@dataclass(frozen=True, slots=True)
class Ask(Event):
    """A question for the user; empty `choices` means a free-text answer."""

    name: ClassVar[str] = "ask"
    id: int
    question: str
    detail: list[str]
    choices: list[str]


@dataclass(frozen=True, slots=True)
class EditReview(Event):
    """A proposed write/edit, raised before it touches disk."""

    name: ClassVar[str] = "edit_review"
    id: int
    tool: str
    path: str
    old: str
    new: str
    segments: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class EditReviewClosed(Event):
    """An undecided review was orphaned (turn ended or cancelled)."""

    name: ClassVar[str] = "edit_review_closed"
    id: int


# ------------------------------------------------------- session and status


@dataclass(frozen=True, slots=True)
class SkillInfo:
    name: str
    description: str


@dataclass(frozen=True, slots=True)
class Ready(Event):
    """First event after spawn."""

    name: ClassVar[str] = "ready"
    model: str
    session: str
    cwd: str
    version: str
    protocol_version: int
    num_ctx: int
    approve: bool
    skills: list[SkillInfo]
    commands: list[str]


@dataclass(frozen=True, slots=True)
class Capabilities(Event):
    """Acknowledges hello with the effective capability set."""

    name: ClassVar[str] = "capabilities"
    protocol_version: int
    edit_review: bool
    approve: bool


@dataclass(frozen=True, slots=True)
class ContextGauge(Event):
    """Context-window occupancy in tokens."""

    name: ClassVar[str] = "context"
    used: int
    limit: int


@dataclass(frozen=True, slots=True)
class SessionItem:
    path: str
    title: str
    saved_at: int
    cwd: str
    model: str
    turns: int


@dataclass(frozen=True, slots=True)
class Sessions(Event):
    """Answer to list_sessions, newest first."""

    name: ClassVar[str] = "sessions"
    items: list[SessionItem]


@dataclass(frozen=True, slots=True)
class Models(Event):
    """Answer to list_models."""

    name: ClassVar[str] = "models"
    models: list[str]
    current: str


@dataclass(frozen=True, slots=True)
class ModelChanged(Event):
    """A set_model succeeded; `note` describes any context-budget adjustment."""

    name: ClassVar[str] = "model_changed"
    model: str
    num_ctx: int
    note: str


@dataclass(frozen=True, slots=True)
class ApprovalChanged(Event):
    """A set_approval (or set_mode) landed; `mode` (additive) is the approval mode:
    ask, accept-edits (edits apply, bash asks), plan (read-only) or auto."""

    name: ClassVar[str] = "approval_changed"
    approve: bool
    mode: str = "ask"


@dataclass(frozen=True, slots=True)
class HistoryMessage:
    role: str
    text: str


@dataclass(frozen=True, slots=True)
class History(Event):
    """Prior user/assistant exchanges of a resumed session."""

    name: ClassVar[str] = "history"
    messages: list[HistoryMessage]


@dataclass(frozen=True, slots=True)
class SessionChanged(Event):
    """The conversation moved to a new session file (additive; `new_session`, `/clear`):
    `previous` stays saved and resumable with `--resume`."""

    name: ClassVar[str] = "session_changed"
    session: str
    previous: str


@dataclass(frozen=True, slots=True)
class Info(Event):
    """A human-relevant notice."""

    name: ClassVar[str] = "info"
    text: str


@dataclass(frozen=True, slots=True)
class Warning(Event):
    """A human-relevant problem; `code` (additive) names its kind for front ends that
    act on it, so none parses the text: "busy" (refused while work runs), "error" (the
    turn failed), "bad_command" (a malformed serve command), "" for anything else."""

    name: ClassVar[str] = "warning"
    text: str
    code: str = ""


@dataclass(frozen=True, slots=True)
class SubagentStarted(Event):
    """A concurrent sub-agent began."""

    name: ClassVar[str] = "subagent_started"
    tag: str
    model: str
    label: str


@dataclass(frozen=True, slots=True)
class SubagentActivity(Event):
    """One sub-agent activity line."""

    name: ClassVar[str] = "subagent"
    tag: str
    text: str
    warn: bool


@dataclass(frozen=True, slots=True)
class SubagentFinished(Event):
    """A sub-agent completed."""

    name: ClassVar[str] = "subagent_finished"
    tag: str
    steps: int


@dataclass(frozen=True, slots=True)
class TaskStarted(Event):
    """A background bash/agent task started."""

    name: ClassVar[str] = "task_started"
    id: int
    label: str


@dataclass(frozen=True, slots=True)
class TaskFinished(Event):
    """A background task finished on its own (kills are silent)."""

    name: ClassVar[str] = "task_finished"
    id: int
    label: str
    ok: bool
    preview: str


EVENT_TYPES: dict[str, type[Event]] = {
    cls.name: cls
    for cls in (
        Iteration,
        Thinking,
        Content,
        ToolStart,
        ToolResult,
        EditDiff,
        Plan,
        Done,
        Ask,
        EditReview,
        EditReviewClosed,
        Ready,
        Capabilities,
        ContextGauge,
        Sessions,
        Models,
        ModelChanged,
        ApprovalChanged,
        History,
        SessionChanged,
        Info,
        Warning,
        SubagentStarted,
        SubagentActivity,
        SubagentFinished,
        TaskStarted,
        TaskFinished,
    )
}


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


_SCALARS = (str, int, float, bool, type(None))
_WIRE_FIELDS: dict[type[Event], tuple[tuple[str, str], ...]] = {}


def _wire_fields(cls: type[Event]) -> tuple[tuple[str, str], ...]:
    """(wire name, attribute) pairs of an event class, computed once per class."""
    fields = _WIRE_FIELDS.get(cls)
    if fields is None:
        fields = tuple((f.metadata.get("wire", f.name), f.name) for f in dataclasses.fields(cls))
        _WIRE_FIELDS[cls] = fields
    return fields


def to_wire(event: Event) -> dict[str, Any]:
    """The event as its wire object: {"event": name, field: value, ...}.

    Hot path: a streamed reply is one `content` event per delta, so scalar fields
    skip the recursive conversion and field lists are cached per class.
    """
    out: dict[str, Any] = {"event": event.name}
    for wire, attr in _wire_fields(type(event)):
        value = getattr(event, attr)
        out[wire] = value if isinstance(value, _SCALARS) else _plain(value)
    return out


def to_json_line(event: Event) -> str:
    """Compact JSON, one line, no trailing newline; non-ASCII kept as UTF-8."""
    return json.dumps(to_wire(event), ensure_ascii=False, separators=(",", ":"))

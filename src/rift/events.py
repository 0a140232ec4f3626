"""The core's events: one immutable, slotted class per serve-protocol event.

Field names are the wire names (except where `_wire_names` says otherwise), and
`to_wire` is the one serializer, so the serve loop, the headless printer, the
TUI and the ACP adapter all describe a turn with the same facts. `EVENT_TYPES`
is the registry the protocol docs and the conformance suite's golden files are
checked against.

The classes are written out by hand rather than with `@dataclass(frozen=True,
slots=True)`: generating those methods ran `exec` several times per class and
made this module the costliest rift import on every fast path (~129 M
instructions for 32 classes, against ~18 M written out; bench/run.py times the
paths). `Record` supplies what the dataclasses gave: keyword or positional
construction, equality, hashing, a readable repr and immutability.
"""

# ruff: noqa: RUF023 (a record's `__slots__` order is its field order: positional arguments
# and wire key order, so it stays in declaration order rather than sorted)

from __future__ import annotations

import json
from typing import Any, ClassVar

PROTOCOL_VERSION = 1

_set = object.__setattr__
"""Assignment that bypasses `Record.__setattr__`: used by the `__init__`s only."""


class Record:
    """Base of events and their parts: the fields are `__slots__`, in declaration order."""

    __slots__: tuple[str, ...] = ()
    _wire_names: ClassVar[dict[str, str]] = {}
    """Attribute -> wire name, where they differ (`tool` is `name` on the wire)."""

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f) for f in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self) or not isinstance(other, Record):  # narrows for mypy
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.__slots__)
        return f"{type(self).__name__}({inner})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot assign {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")


def fields(cls: type[Record]) -> tuple[str, ...]:
    """The attribute names of a record class, in declaration order."""
    return cls.__slots__


def wire_fields(cls: type[Record]) -> tuple[tuple[str, str], ...]:
    """(wire name, attribute) pairs of a record class."""
    renames = cls._wire_names
    return tuple((renames.get(f, f), f) for f in fields(cls))


class Event(Record):
    """Base class; `name` is the wire `event` value."""

    name: ClassVar[str] = ""
    __slots__ = ()


# ---------------------------------------------------------------- turn flow


class Iteration(Event):
    """Agent-loop iteration counter within the turn."""

    name: ClassVar[str] = "iteration"
    __slots__ = ("n",)
    n: int

    def __init__(self, n: int) -> None:
        _set(self, "n", n)


class Thinking(Event):
    """Streamed reasoning (thinking models only); like `content`, one or more model deltas."""

    name: ClassVar[str] = "thinking"
    __slots__ = ("text",)
    text: str

    def __init__(self, text: str) -> None:
        _set(self, "text", text)


class Content(Event):
    """Streamed assistant reply text: concatenate the events. One event may carry several
    model deltas (serve writes those that arrived together as one event)."""

    name: ClassVar[str] = "content"
    __slots__ = ("text",)
    text: str

    def __init__(self, text: str) -> None:
        _set(self, "text", text)


class ToolStart(Event):
    """A tool call begins; `args` is the arguments object ({"raw": text} when not JSON)."""

    name: ClassVar[str] = "tool_start"
    __slots__ = ("tool", "args", "id")
    _wire_names: ClassVar[dict[str, str]] = {"tool": "name"}
    tool: str
    args: dict[str, Any]
    id: str
    """The model's call id (additive): pairs this start with its `tool_result`."""

    def __init__(self, tool: str, args: dict[str, Any], id: str = "") -> None:
        _set(self, "tool", tool)
        _set(self, "args", args)
        _set(self, "id", id)


class ToolResult(Event):
    """A tool finished; `preview` is a short excerpt of its result.

    `id` and `output` are additive: the call id of the matching `tool_start` and
    the result as the model saw it, capped at 16,000 characters, so front
    ends can show full output without re-reading files or the conversation.
    """

    name: ClassVar[str] = "tool_result"
    __slots__ = ("tool", "ok", "preview", "id", "output")
    _wire_names: ClassVar[dict[str, str]] = {"tool": "name"}
    tool: str
    ok: bool
    preview: str
    id: str
    output: str

    def __init__(self, tool: str, ok: bool, preview: str, id: str = "", output: str = "") -> None:
        _set(self, "tool", tool)
        _set(self, "ok", ok)
        _set(self, "preview", preview)
        _set(self, "id", id)
        _set(self, "output", output)


class DiffRegion(Record):
    """The changed region of an edit: from line `start` (1-based), the `old` lines were
    replaced by the `new` ones (each list capped); `created`: the file is new."""

    __slots__ = ("start", "old", "new", "created")
    start: int
    old: list[str]
    new: list[str]
    created: bool

    def __init__(self, start: int, old: list[str], new: list[str], created: bool) -> None:
        _set(self, "start", start)
        _set(self, "old", old)
        _set(self, "new", new)
        _set(self, "created", created)


class EditDiff(Event):
    """A write/edit was applied: capped ± preview, emitted right after its tool_result.

    `region` (additive) is the same change as data, so no client parses `diff`.
    """

    name: ClassVar[str] = "edit_diff"
    __slots__ = ("path", "added", "removed", "diff", "region")
    path: str
    added: int
    removed: int
    diff: list[str]
    region: DiffRegion

    def __init__(
        self,
        path: str,
        added: int,
        removed: int,
        diff: list[str],
        region: DiffRegion | None = None,
    ) -> None:
        _set(self, "path", path)
        _set(self, "added", added)
        _set(self, "removed", removed)
        _set(self, "diff", diff)
        _set(self, "region", DiffRegion(1, [], [], False) if region is None else region)


class PlanItem(Record):
    __slots__ = ("text", "done")
    text: str
    done: bool

    def __init__(self, text: str, done: bool) -> None:
        _set(self, "text", text)
        _set(self, "done", done)


class Plan(Event):
    """The agent's live checklist; replaces the previous plan."""

    name: ClassVar[str] = "plan"
    __slots__ = ("items",)
    items: list[PlanItem]

    def __init__(self, items: list[PlanItem]) -> None:
        _set(self, "items", items)


class TurnStats(Record):
    __slots__ = (
        "iterations",
        "prompt_tokens",
        "billed_prompt_tokens",
        "output_tokens",
        "duration_ms",
        "tokens_per_sec",
    )
    iterations: int
    prompt_tokens: int
    billed_prompt_tokens: int
    output_tokens: int
    duration_ms: int
    tokens_per_sec: float

    def __init__(
        self,
        iterations: int = 0,
        prompt_tokens: int = 0,
        billed_prompt_tokens: int = 0,
        output_tokens: int = 0,
        duration_ms: int = 0,
        tokens_per_sec: float = 0.0,
    ) -> None:
        _set(self, "iterations", iterations)
        _set(self, "prompt_tokens", prompt_tokens)
        _set(self, "billed_prompt_tokens", billed_prompt_tokens)
        _set(self, "output_tokens", output_tokens)
        _set(self, "duration_ms", duration_ms)
        _set(self, "tokens_per_sec", tokens_per_sec)


class Done(Event):
    """Always ends a turn, success or error.

    `outcome` and `reason` are additive: how the turn ended (one of `OUTCOMES`)
    and, unless it was answered, why in words, so front ends never parse
    warning text to learn it. `cost_usd` (additive) is the turn's estimated cost
    at the config's `pricing` rates; 0.0 for local or unpriced models.
    """

    name: ClassVar[str] = "done"
    __slots__ = ("stats", "outcome", "reason", "cost_usd")
    stats: TurnStats
    outcome: str
    reason: str
    cost_usd: float

    def __init__(
        self,
        stats: TurnStats | None = None,
        outcome: str = "answered",
        reason: str = "",
        cost_usd: float = 0.0,
    ) -> None:
        _set(self, "stats", TurnStats() if stats is None else stats)
        _set(self, "outcome", outcome)
        _set(self, "reason", reason)
        _set(self, "cost_usd", cost_usd)


OUTCOMES = ("answered", "stopped", "cancelled", "wrapped", "error")
"""answered: the model replied; stopped: a stopping rule ended the turn (repeated
failures); cancelled: the user cancelled; wrapped: the iteration budget ran out;
error: the model call failed."""


# -------------------------------------------------------------- interaction


class AskOption(Record):
    """What one choice of an ask means, so no face reads it out of the choice's words.

    `id` is the choice text to answer with; `kind` is one of `ASK_OPTION_KINDS`;
    `rule` is the permission rule an `allow_project`/`allow_everywhere` answer saves
    (`Bash(git status *)`), empty for every other kind.
    """

    __slots__ = ("id", "kind", "rule")
    id: str
    kind: str
    rule: str

    def __init__(self, id: str, kind: str, rule: str = "") -> None:
        _set(self, "id", id)
        _set(self, "kind", kind)
        _set(self, "rule", rule)


ASK_OPTION_KINDS = (
    "allow_once",
    "allow_session",
    "allow_project",
    "allow_everywhere",
    "deny",
    "trust",
    "skip",
    "choice",
)
"""allow_session: this tool unasked for the rest of the session; allow_project and
allow_everywhere: `rule` saved to the user config for this project or for all; trust
and skip: a project extension's ask; choice: an answer the model offered (ask_user)."""


class Ask(Event):
    """A question for the user; empty `choices` means a free-text answer.

    `options` (additive) gives each choice's meaning, in the same order: answer
    with an option's `id` (the choice text). `kind` is allow_once, allow_session
    (the tool unasked for the rest of the session), allow_project or
    allow_everywhere (`rule` is saved to the user config for this project or for
    all), deny, trust or skip (a project extension's ask), or choice (an answer
    the model offered); `rule` is empty for all but the two saving kinds.
    """

    name: ClassVar[str] = "ask"
    __slots__ = ("id", "question", "detail", "choices", "options")
    id: int
    question: str
    detail: list[str]
    choices: list[str]
    options: list[AskOption]

    def __init__(
        self,
        id: int,
        question: str,
        detail: list[str],
        choices: list[str],
        options: list[AskOption] | None = None,
    ) -> None:
        _set(self, "id", id)
        _set(self, "question", question)
        _set(self, "detail", detail)
        _set(self, "choices", choices)
        _set(self, "options", [] if options is None else options)


class EditReview(Event):
    """A proposed write/edit, raised before it touches disk."""

    name: ClassVar[str] = "edit_review"
    __slots__ = ("id", "tool", "path", "old", "new", "segments")
    id: int
    tool: str
    path: str
    old: str
    new: str
    segments: list[dict[str, Any]]

    def __init__(
        self,
        id: int,
        tool: str,
        path: str,
        old: str,
        new: str,
        segments: list[dict[str, Any]],
    ) -> None:
        _set(self, "id", id)
        _set(self, "tool", tool)
        _set(self, "path", path)
        _set(self, "old", old)
        _set(self, "new", new)
        _set(self, "segments", segments)


class EditReviewClosed(Event):
    """An undecided review was orphaned (turn ended or cancelled)."""

    name: ClassVar[str] = "edit_review_closed"
    __slots__ = ("id",)
    id: int

    def __init__(self, id: int) -> None:
        _set(self, "id", id)


# ------------------------------------------------------- session and status


class SkillInfo(Record):
    __slots__ = ("name", "description")
    name: str
    description: str

    def __init__(self, name: str, description: str) -> None:
        _set(self, "name", name)
        _set(self, "description", description)


class Ready(Event):
    """First event after spawn."""

    name: ClassVar[str] = "ready"
    __slots__ = (
        "model",
        "session",
        "cwd",
        "version",
        "protocol_version",
        "num_ctx",
        "approve",
        "skills",
        "commands",
    )
    model: str
    session: str
    cwd: str
    version: str
    protocol_version: int
    num_ctx: int
    approve: bool
    skills: list[SkillInfo]
    commands: list[str]

    def __init__(
        self,
        model: str,
        session: str,
        cwd: str,
        version: str,
        protocol_version: int,
        num_ctx: int,
        approve: bool,
        skills: list[SkillInfo],
        commands: list[str],
    ) -> None:
        _set(self, "model", model)
        _set(self, "session", session)
        _set(self, "cwd", cwd)
        _set(self, "version", version)
        _set(self, "protocol_version", protocol_version)
        _set(self, "num_ctx", num_ctx)
        _set(self, "approve", approve)
        _set(self, "skills", skills)
        _set(self, "commands", commands)


class Capabilities(Event):
    """Acknowledges hello with the effective capability set."""

    name: ClassVar[str] = "capabilities"
    __slots__ = ("protocol_version", "edit_review", "approve")
    protocol_version: int
    edit_review: bool
    approve: bool

    def __init__(self, protocol_version: int, edit_review: bool, approve: bool) -> None:
        _set(self, "protocol_version", protocol_version)
        _set(self, "edit_review", edit_review)
        _set(self, "approve", approve)


class ContextGauge(Event):
    """Context-window occupancy in tokens."""

    name: ClassVar[str] = "context"
    __slots__ = ("used", "limit")
    used: int
    limit: int

    def __init__(self, used: int, limit: int) -> None:
        _set(self, "used", used)
        _set(self, "limit", limit)


class SessionItem(Record):
    __slots__ = ("path", "title", "saved_at", "cwd", "model", "turns")
    path: str
    title: str
    saved_at: int
    cwd: str
    model: str
    turns: int

    def __init__(
        self,
        path: str,
        title: str,
        saved_at: int,
        cwd: str,
        model: str,
        turns: int,
    ) -> None:
        _set(self, "path", path)
        _set(self, "title", title)
        _set(self, "saved_at", saved_at)
        _set(self, "cwd", cwd)
        _set(self, "model", model)
        _set(self, "turns", turns)


class Sessions(Event):
    """Answer to list_sessions, newest first."""

    name: ClassVar[str] = "sessions"
    __slots__ = ("items",)
    items: list[SessionItem]

    def __init__(self, items: list[SessionItem]) -> None:
        _set(self, "items", items)


class Models(Event):
    """Answer to list_models."""

    name: ClassVar[str] = "models"
    __slots__ = ("models", "current")
    models: list[str]
    current: str

    def __init__(self, models: list[str], current: str) -> None:
        _set(self, "models", models)
        _set(self, "current", current)


class ModelChanged(Event):
    """A set_model succeeded; `note` describes any context-budget adjustment."""

    name: ClassVar[str] = "model_changed"
    __slots__ = ("model", "num_ctx", "note")
    model: str
    num_ctx: int
    note: str

    def __init__(self, model: str, num_ctx: int, note: str) -> None:
        _set(self, "model", model)
        _set(self, "num_ctx", num_ctx)
        _set(self, "note", note)


class ApprovalChanged(Event):
    """A set_approval (or set_mode) landed; `mode` (additive) is the approval mode:
    ask, accept-edits (edits apply, bash asks), plan (read-only) or auto."""

    name: ClassVar[str] = "approval_changed"
    __slots__ = ("approve", "mode")
    approve: bool
    mode: str

    def __init__(self, approve: bool, mode: str = "ask") -> None:
        _set(self, "approve", approve)
        _set(self, "mode", mode)


class HistoryMessage(Record):
    __slots__ = ("role", "text")
    role: str
    text: str

    def __init__(self, role: str, text: str) -> None:
        _set(self, "role", role)
        _set(self, "text", text)


class History(Event):
    """Prior user/assistant exchanges of a resumed session."""

    name: ClassVar[str] = "history"
    __slots__ = ("messages",)
    messages: list[HistoryMessage]

    def __init__(self, messages: list[HistoryMessage]) -> None:
        _set(self, "messages", messages)


class SessionChanged(Event):
    """The conversation moved to a new session file (additive; `new_session`, `/clear`):
    `previous` stays saved and resumable with `--resume`."""

    name: ClassVar[str] = "session_changed"
    __slots__ = ("session", "previous")
    session: str
    previous: str

    def __init__(self, session: str, previous: str) -> None:
        _set(self, "session", session)
        _set(self, "previous", previous)


class Info(Event):
    """A human-relevant notice."""

    name: ClassVar[str] = "info"
    __slots__ = ("text",)
    text: str

    def __init__(self, text: str) -> None:
        _set(self, "text", text)


class Warning(Event):
    """A human-relevant problem; `code` (additive) names its kind for front ends that
    act on it, so none parses the text: "busy" (refused while work runs), "error" (the
    turn failed), "bad_command" (a malformed serve command), "" for anything else."""

    name: ClassVar[str] = "warning"
    __slots__ = ("text", "code")
    text: str
    code: str

    def __init__(self, text: str, code: str = "") -> None:
        _set(self, "text", text)
        _set(self, "code", code)


class SubagentStarted(Event):
    """A concurrent sub-agent began."""

    name: ClassVar[str] = "subagent_started"
    __slots__ = ("tag", "model", "label")
    tag: str
    model: str
    label: str

    def __init__(self, tag: str, model: str, label: str) -> None:
        _set(self, "tag", tag)
        _set(self, "model", model)
        _set(self, "label", label)


class SubagentActivity(Event):
    """One sub-agent activity line."""

    name: ClassVar[str] = "subagent"
    __slots__ = ("tag", "text", "warn")
    tag: str
    text: str
    warn: bool

    def __init__(self, tag: str, text: str, warn: bool) -> None:
        _set(self, "tag", tag)
        _set(self, "text", text)
        _set(self, "warn", warn)


class SubagentFinished(Event):
    """A sub-agent completed."""

    name: ClassVar[str] = "subagent_finished"
    __slots__ = ("tag", "steps")
    tag: str
    steps: int

    def __init__(self, tag: str, steps: int) -> None:
        _set(self, "tag", tag)
        _set(self, "steps", steps)


class TaskStarted(Event):
    """A background bash/agent task started."""

    name: ClassVar[str] = "task_started"
    __slots__ = ("id", "label")
    id: int
    label: str

    def __init__(self, id: int, label: str) -> None:
        _set(self, "id", id)
        _set(self, "label", label)


class TaskFinished(Event):
    """A background task finished on its own (kills are silent)."""

    name: ClassVar[str] = "task_finished"
    __slots__ = ("id", "label", "ok", "preview")
    id: int
    label: str
    ok: bool
    preview: str

    def __init__(self, id: int, label: str, ok: bool, preview: str) -> None:
        _set(self, "id", id)
        _set(self, "label", label)
        _set(self, "ok", ok)
        _set(self, "preview", preview)


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


def to_plain(value: Any) -> Any:
    """Records (nested ones too) as dicts keyed by attribute; lists and dicts walked."""
    if isinstance(value, Record):
        return {f: to_plain(getattr(value, f)) for f in value.__slots__}
    if isinstance(value, list | tuple):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    return value


_SCALARS = (str, int, float, bool, type(None))
_WIRE_FIELDS: dict[type[Event], tuple[tuple[str, str], ...]] = {}


def to_wire(event: Event) -> dict[str, Any]:
    """The event as its wire object: {"event": name, field: value, ...}.

    Hot path: a streamed reply is one `content` event per delta, so scalar fields
    skip the recursive conversion and field lists are cached per class.
    """
    cls = type(event)
    pairs = _WIRE_FIELDS.get(cls)
    if pairs is None:
        pairs = _WIRE_FIELDS[cls] = wire_fields(cls)
    out: dict[str, Any] = {"event": event.name}
    for wire, attr in pairs:
        value = getattr(event, attr)
        out[wire] = value if isinstance(value, _SCALARS) else to_plain(value)
    return out


def to_json_line(event: Event) -> str:
    """Compact JSON, one line, no trailing newline; non-ASCII kept as UTF-8."""
    return json.dumps(to_wire(event), ensure_ascii=False, separators=(",", ":"))

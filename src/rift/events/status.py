"""Events about the session and its status (ready, gauges, models, history), notices,
and the sub-agents and background tasks that outlive one tool call."""

# ruff: noqa: RUF023 (a record's `__slots__` order is its field order: positional arguments
# and wire key order, so it stays in declaration order rather than sorted)

from __future__ import annotations

from typing import ClassVar

from rift.events.base import Event, Record, _set

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
    turn failed), "bad_command" (a malformed serve command), "server" (the model server
    just switched to needs a change: its window, chat template or slots), "" for anything
    else."""

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


class SwarmStarted(Event):
    """A swarm race is about to run its candidates (additive): `candidates` are their
    names, in the order they start; each then runs as a sub-agent tagged with its name,
    and the race ends with `swarm_result` (or a warning when it is cancelled)."""

    name: ClassVar[str] = "swarm_started"
    __slots__ = ("task", "candidates")
    task: str
    candidates: list[str]

    def __init__(self, task: str, candidates: list[str]) -> None:
        _set(self, "task", task)
        _set(self, "candidates", candidates)


class SwarmCandidate(Record):
    """One row of a swarm race's verdict (`swarm_result.candidates`)."""

    __slots__ = (
        "name",
        "model",
        "outcome",
        "patch_bytes",
        "tests",
        "tests_green",
        "seconds",
        "prompt_tokens",
        "output_tokens",
    )
    name: str
    model: str
    outcome: str
    patch_bytes: int
    tests: str
    tests_green: bool
    seconds: float
    prompt_tokens: int
    output_tokens: int

    def __init__(
        self,
        name: str,
        model: str,
        outcome: str,
        patch_bytes: int,
        tests: str,
        tests_green: bool,
        seconds: float,
        prompt_tokens: int,
        output_tokens: int,
    ) -> None:
        _set(self, "name", name)
        _set(self, "model", model)
        _set(self, "outcome", outcome)
        _set(self, "patch_bytes", patch_bytes)
        _set(self, "tests", tests)
        _set(self, "tests_green", tests_green)
        _set(self, "seconds", seconds)
        _set(self, "prompt_tokens", prompt_tokens)
        _set(self, "output_tokens", output_tokens)


class SwarmResult(Event):
    """A swarm race ended (additive): `winner` is a candidate name, "" when none won;
    `merge` with that name applies its patch. Each candidate ran as a sub-agent tagged
    with its name (`subagent_started`/`subagent`/`subagent_finished`)."""

    name: ClassVar[str] = "swarm_result"
    __slots__ = ("winner", "judged_by", "note", "candidates")
    winner: str
    judged_by: str
    note: str
    candidates: list[SwarmCandidate]

    def __init__(
        self, winner: str, judged_by: str, note: str, candidates: list[SwarmCandidate]
    ) -> None:
        _set(self, "winner", winner)
        _set(self, "judged_by", judged_by)
        _set(self, "note", note)
        _set(self, "candidates", candidates)

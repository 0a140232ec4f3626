"""Events about the session and its status (ready, gauges, models, history), notices,
and the sub-agents and background tasks that outlive one tool call."""

from __future__ import annotations

from typing import ClassVar

from rift.events.base import Event, Record


class SkillInfo(Record, frozen=True):
    name: str
    description: str


class Ready(Event, frozen=True):
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


class Capabilities(Event, frozen=True):
    """Acknowledges hello with the effective capability set."""

    name: ClassVar[str] = "capabilities"
    protocol_version: int
    edit_review: bool
    approve: bool


class ContextGauge(Event, frozen=True):
    """Context-window occupancy in tokens."""

    name: ClassVar[str] = "context"
    used: int
    limit: int


class SessionItem(Record, frozen=True):
    path: str
    title: str
    saved_at: int
    cwd: str
    model: str
    turns: int


class Sessions(Event, frozen=True):
    """Answer to list_sessions, newest first."""

    name: ClassVar[str] = "sessions"
    items: list[SessionItem]


class Models(Event, frozen=True):
    """Answer to list_models."""

    name: ClassVar[str] = "models"
    models: list[str]
    current: str


class ModelChanged(Event, frozen=True):
    """A set_model succeeded; `note` describes any context-budget adjustment."""

    name: ClassVar[str] = "model_changed"
    model: str
    num_ctx: int
    note: str


class ApprovalChanged(Event, frozen=True):
    """A set_approval (or set_mode) landed; `mode` (additive) is the approval mode:
    ask, accept-edits (edits apply, bash asks), plan (read-only) or auto."""

    name: ClassVar[str] = "approval_changed"
    approve: bool
    mode: str = "ask"


class HistoryMessage(Record, frozen=True):
    role: str
    text: str


class History(Event, frozen=True):
    """Prior user/assistant exchanges of a resumed session."""

    name: ClassVar[str] = "history"
    messages: list[HistoryMessage]


class SessionChanged(Event, frozen=True):
    """The conversation moved to a new session file (additive; `new_session`, `/clear`):
    `previous` stays saved and resumable with `--resume`."""

    name: ClassVar[str] = "session_changed"
    session: str
    previous: str


class Info(Event, frozen=True):
    """A human-relevant notice."""

    name: ClassVar[str] = "info"
    text: str


class Warning(Event, frozen=True):
    """A human-relevant problem; `code` (additive) names its kind for front ends that
    act on it, so none parses the text: "busy" (refused while work runs), "error" (the
    turn failed), "bad_command" (a malformed serve command), "server" (the model server
    just switched to needs a change: its window, chat template or slots), "" for anything
    else."""

    name: ClassVar[str] = "warning"
    text: str
    code: str = ""


class SubagentStarted(Event, frozen=True):
    """A concurrent sub-agent began."""

    name: ClassVar[str] = "subagent_started"
    tag: str
    model: str
    label: str


class SubagentActivity(Event, frozen=True):
    """One sub-agent activity line."""

    name: ClassVar[str] = "subagent"
    tag: str
    text: str
    warn: bool


class SubagentFinished(Event, frozen=True):
    """A sub-agent completed."""

    name: ClassVar[str] = "subagent_finished"
    tag: str
    steps: int


class TaskStarted(Event, frozen=True):
    """A background bash/agent task started."""

    name: ClassVar[str] = "task_started"
    id: int
    label: str


class TaskFinished(Event, frozen=True):
    """A background task finished on its own (kills are silent)."""

    name: ClassVar[str] = "task_finished"
    id: int
    label: str
    ok: bool
    preview: str


class SwarmStarted(Event, frozen=True):
    """A swarm race is about to run its candidates (additive): `candidates` are their
    names, in the order they start; each then runs as a sub-agent tagged with its name,
    and the race ends with `swarm_result` (or a warning when it is cancelled)."""

    name: ClassVar[str] = "swarm_started"
    task: str
    candidates: list[str]


class SwarmCandidate(Record, frozen=True):
    """One row of a swarm race's verdict (`swarm_result.candidates`)."""

    name: str
    model: str
    outcome: str
    patch_bytes: int
    tests: str
    tests_green: bool
    seconds: float
    prompt_tokens: int
    output_tokens: int


class SwarmResult(Event, frozen=True):
    """A swarm race ended (additive): `winner` is a candidate name, "" when none won;
    `merge` with that name applies its patch. Each candidate ran as a sub-agent tagged
    with its name (`subagent_started`/`subagent`/`subagent_finished`)."""

    name: ClassVar[str] = "swarm_result"
    winner: str
    judged_by: str
    note: str
    candidates: list[SwarmCandidate]

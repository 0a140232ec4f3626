"""Events of one turn: iterations, streamed text, tool calls, diffs, plans, done;
and the asks and edit reviews a turn raises."""

from __future__ import annotations

from typing import Any, ClassVar

from msgspec import field

from rift.events.base import Event, Record

EDIT_DIFF_LINES = 80
"""Lines of a diff carried in an `edit_diff` event."""
RESULT_OUTPUT_CAP = 16_000
"""Characters of a tool result carried in the `tool_result` event's `output` field."""


class Iteration(Event, frozen=True):
    """Agent-loop iteration counter within the turn."""

    name: ClassVar[str] = "iteration"
    n: int


class Thinking(Event, frozen=True):
    """Streamed reasoning (thinking models only); like `content`, one or more model deltas."""

    name: ClassVar[str] = "thinking"
    text: str


class Content(Event, frozen=True):
    """Streamed assistant reply text: concatenate the events. One event may carry several
    model deltas (serve writes those that arrived together as one event)."""

    name: ClassVar[str] = "content"
    text: str


class ToolStart(Event, frozen=True):
    """A tool call begins; `args` is the arguments object ({"raw": text} when not JSON)."""

    name: ClassVar[str] = "tool_start"
    _wire_names: ClassVar[dict[str, str]] = {"tool": "name"}
    tool: str
    args: dict[str, Any]
    id: str = ""
    """The model's call id (additive): pairs this start with its `tool_result`."""


class ToolResult(Event, frozen=True):
    """A tool finished; `preview` is a short excerpt of its result.

    `id` and `output` are additive: the call id of the matching `tool_start` and
    the result as the model saw it, capped at 16,000 characters, so front
    ends can show full output without re-reading files or the conversation.
    """

    name: ClassVar[str] = "tool_result"
    _wire_names: ClassVar[dict[str, str]] = {"tool": "name"}
    tool: str
    ok: bool
    preview: str
    id: str = ""
    output: str = ""


class DiffRegion(Record, frozen=True):
    """The changed region of an edit: from line `start` (1-based), the `old` lines were
    replaced by the `new` ones (each list capped); `created`: the file is new."""

    start: int
    old: list[str]
    new: list[str]
    created: bool


def _empty_region() -> DiffRegion:
    return DiffRegion(1, [], [], False)


class EditDiff(Event, frozen=True):
    """A write/edit was applied: capped ± preview, emitted right after its tool_result.

    `region` (additive) is the same change as data, so no client parses `diff`.
    """

    name: ClassVar[str] = "edit_diff"
    path: str
    added: int
    removed: int
    diff: list[str]
    region: DiffRegion = field(default_factory=_empty_region)


class PlanItem(Record, frozen=True):
    text: str
    done: bool


class Plan(Event, frozen=True):
    """The agent's live checklist; replaces the previous plan."""

    name: ClassVar[str] = "plan"
    items: list[PlanItem]


class PrefillProgress(Event, frozen=True):
    """The model server is reading a long prompt (additive; llama.cpp's `prompt_progress`,
    sent only by servers that report it): `processed` of `total` prompt tokens are in its
    cache, `cached` of them reused from an earlier request. `tokens_per_sec` is the
    server's reading speed so far over the tokens it had to read (0.0 when unknown).
    A face may show a progress line; the first `content` or `thinking` ends the read."""

    name: ClassVar[str] = "prefill_progress"
    processed: int
    total: int
    cached: int = 0
    tokens_per_sec: float = 0.0


class TurnStats(Record, frozen=True):
    iterations: int = 0
    prompt_tokens: int = 0
    billed_prompt_tokens: int = 0
    output_tokens: int = 0
    duration_ms: int = 0
    tokens_per_sec: float = 0.0
    # Additive, where the turn's time went (0 when the server did not say; core/loop/timings.py):
    requests: int = 0
    """Model requests that reported usage."""
    prefill_tokens: int = 0
    """Prompt tokens the server evaluated (cache misses), summed over requests."""
    prefill_ms: int = 0
    decode_tokens: int = 0
    decode_ms: int = 0
    cached_tokens: int = 0
    """Prompt tokens taken from the server's cache, summed over requests."""
    tool_ms: int = 0
    """Wall time of the turn's tool runs."""


class Done(Event, frozen=True):
    """Always ends a turn, success or error.

    `outcome` and `reason` are additive: how the turn ended (one of `OUTCOMES`)
    and, unless it was answered, why in words, so front ends never parse
    warning text to learn it. `cost_usd` (additive) is the turn's estimated cost
    at the config's `pricing` rates; 0.0 for local or unpriced models. `checks`
    (additive) is the project's checks as the turn left them, when they ran
    (`{command, passed, failed, failing, ok}`, checks/results.py), else null.
    """

    name: ClassVar[str] = "done"
    stats: TurnStats = field(default_factory=TurnStats)
    outcome: str = "answered"
    reason: str = ""
    cost_usd: float = 0.0
    checks: dict[str, object] | None = None


OUTCOMES = ("answered", "stopped", "cancelled", "wrapped", "error")
"""answered: the model replied; stopped: a stopping rule ended the turn (repeated
failures); cancelled: the user cancelled; wrapped: the iteration budget ran out;
error: the model call failed."""


class AskOption(Record, frozen=True):
    """What one choice of an ask means, so no face reads it out of the choice's words.

    `id` is the choice text to answer with; `kind` is one of `ASK_OPTION_KINDS`;
    `rule` is the permission rule an `allow_project`/`allow_everywhere` answer saves
    (`Bash(git status *)`), empty for every other kind.
    """

    id: str
    kind: str
    rule: str = ""


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


class Ask(Event, frozen=True):
    """A question for the user; empty `choices` means a free-text answer.

    `options` (additive) gives each choice's meaning, in the same order: answer
    with an option's `id` (the choice text). `kind` is allow_once, allow_session
    (the tool unasked for the rest of the session), allow_project or
    allow_everywhere (`rule` is saved to the user config for this project or for
    all), deny, trust or skip (a project extension's ask), or choice (an answer
    the model offered); `rule` is empty for all but the two saving kinds.
    """

    name: ClassVar[str] = "ask"
    id: int
    question: str
    detail: list[str]
    choices: list[str]
    options: list[AskOption] = field(default_factory=list)


class EditReview(Event, frozen=True):
    """A proposed write/edit, raised before it touches disk."""

    name: ClassVar[str] = "edit_review"
    id: int
    tool: str
    path: str
    old: str
    new: str
    segments: list[dict[str, Any]]


class EditReviewClosed(Event, frozen=True):
    """An undecided review was orphaned (turn ended or cancelled)."""

    name: ClassVar[str] = "edit_review_closed"
    id: int

"""Events of one turn: iterations, streamed text, tool calls, diffs, plans, done;
and the asks and edit reviews a turn raises."""

# ruff: noqa: RUF023 (a record's `__slots__` order is its field order: positional arguments
# and wire key order, so it stays in declaration order rather than sorted)

from __future__ import annotations

from typing import Any, ClassVar

from rift.events.base import Event, Record, _set

EDIT_DIFF_LINES = 80
"""Lines of a diff carried in an `edit_diff` event."""
RESULT_OUTPUT_CAP = 16_000
"""Characters of a tool result carried in the `tool_result` event's `output` field."""

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


class PrefillProgress(Event):
    """The model server is reading a long prompt (additive; llama.cpp's `prompt_progress`,
    sent only by servers that report it): `processed` of `total` prompt tokens are in its
    cache, `cached` of them reused from an earlier request. `tokens_per_sec` is the
    server's reading speed so far over the tokens it had to read (0.0 when unknown).
    A face may show a progress line; the first `content` or `thinking` ends the read."""

    name: ClassVar[str] = "prefill_progress"
    __slots__ = ("processed", "total", "cached", "tokens_per_sec")
    processed: int
    total: int
    cached: int
    tokens_per_sec: float

    def __init__(
        self, processed: int, total: int, cached: int = 0, tokens_per_sec: float = 0.0
    ) -> None:
        _set(self, "processed", processed)
        _set(self, "total", total)
        _set(self, "cached", cached)
        _set(self, "tokens_per_sec", tokens_per_sec)


class TurnStats(Record):
    __slots__ = (
        "iterations",
        "prompt_tokens",
        "billed_prompt_tokens",
        "output_tokens",
        "duration_ms",
        "tokens_per_sec",
        "requests",
        "prefill_tokens",
        "prefill_ms",
        "decode_tokens",
        "decode_ms",
        "cached_tokens",
        "tool_ms",
    )
    iterations: int
    prompt_tokens: int
    billed_prompt_tokens: int
    output_tokens: int
    duration_ms: int
    tokens_per_sec: float
    # Additive, where the turn's time went (0 when the server did not say; core/loop/timings.py):
    requests: int
    """Model requests that reported usage."""
    prefill_tokens: int
    """Prompt tokens the server evaluated (cache misses), summed over requests."""
    prefill_ms: int
    decode_tokens: int
    decode_ms: int
    cached_tokens: int
    """Prompt tokens taken from the server's cache, summed over requests."""
    tool_ms: int
    """Wall time of the turn's tool runs."""

    def __init__(
        self,
        iterations: int = 0,
        prompt_tokens: int = 0,
        billed_prompt_tokens: int = 0,
        output_tokens: int = 0,
        duration_ms: int = 0,
        tokens_per_sec: float = 0.0,
        requests: int = 0,
        prefill_tokens: int = 0,
        prefill_ms: int = 0,
        decode_tokens: int = 0,
        decode_ms: int = 0,
        cached_tokens: int = 0,
        tool_ms: int = 0,
    ) -> None:
        _set(self, "iterations", iterations)
        _set(self, "prompt_tokens", prompt_tokens)
        _set(self, "billed_prompt_tokens", billed_prompt_tokens)
        _set(self, "output_tokens", output_tokens)
        _set(self, "duration_ms", duration_ms)
        _set(self, "tokens_per_sec", tokens_per_sec)
        _set(self, "requests", requests)
        _set(self, "prefill_tokens", prefill_tokens)
        _set(self, "prefill_ms", prefill_ms)
        _set(self, "decode_tokens", decode_tokens)
        _set(self, "decode_ms", decode_ms)
        _set(self, "cached_tokens", cached_tokens)
        _set(self, "tool_ms", tool_ms)


class Done(Event):
    """Always ends a turn, success or error.

    `outcome` and `reason` are additive: how the turn ended (one of `OUTCOMES`)
    and, unless it was answered, why in words, so front ends never parse
    warning text to learn it. `cost_usd` (additive) is the turn's estimated cost
    at the config's `pricing` rates; 0.0 for local or unpriced models. `checks`
    (additive) is the project's checks as the turn left them, when they ran
    (`{command, passed, failed, failing, ok}`, checks/results.py), else null.
    """

    name: ClassVar[str] = "done"
    __slots__ = ("stats", "outcome", "reason", "cost_usd", "checks")
    stats: TurnStats
    outcome: str
    reason: str
    cost_usd: float
    checks: dict[str, object] | None

    def __init__(
        self,
        stats: TurnStats | None = None,
        outcome: str = "answered",
        reason: str = "",
        cost_usd: float = 0.0,
        checks: dict[str, object] | None = None,
    ) -> None:
        _set(self, "stats", TurnStats() if stats is None else stats)
        _set(self, "outcome", outcome)
        _set(self, "reason", reason)
        _set(self, "cost_usd", cost_usd)
        _set(self, "checks", checks)


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

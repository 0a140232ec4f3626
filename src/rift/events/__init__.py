"""The core's events: one immutable, slotted class per serve-protocol event.

Field names are the wire names (except where `_wire_names` says otherwise), and
`to_wire` is the one serializer, so every front end describes a turn with the same facts.
`EVENT_TYPES` is the registry the protocol docs and the conformance golden files are
checked against.
"""

from __future__ import annotations

import json
from typing import Any

from rift.events.base import PROTOCOL_VERSION, Event, Record, fields, wire_fields
from rift.events.status import (
    ApprovalChanged,
    Capabilities,
    ContextGauge,
    History,
    HistoryMessage,
    Info,
    ModelChanged,
    Models,
    Ready,
    SessionChanged,
    SessionItem,
    Sessions,
    SkillInfo,
    SubagentActivity,
    SubagentFinished,
    SubagentStarted,
    SwarmCandidate,
    SwarmResult,
    SwarmStarted,
    TaskFinished,
    TaskStarted,
    Warning,
)
from rift.events.turn import (
    ASK_OPTION_KINDS,
    EDIT_DIFF_LINES,
    OUTCOMES,
    RESULT_OUTPUT_CAP,
    Ask,
    AskOption,
    Content,
    DiffRegion,
    Done,
    EditDiff,
    EditReview,
    EditReviewClosed,
    Iteration,
    Plan,
    PlanItem,
    PrefillProgress,
    Thinking,
    ToolResult,
    ToolStart,
    TurnStats,
)

__all__ = [
    "ASK_OPTION_KINDS",
    "EDIT_DIFF_LINES",
    "EVENT_TYPES",
    "OUTCOMES",
    "PROTOCOL_VERSION",
    "RESULT_OUTPUT_CAP",
    "ApprovalChanged",
    "Ask",
    "AskOption",
    "Capabilities",
    "Content",
    "ContextGauge",
    "DiffRegion",
    "Done",
    "EditDiff",
    "EditReview",
    "EditReviewClosed",
    "Event",
    "History",
    "HistoryMessage",
    "Info",
    "Iteration",
    "ModelChanged",
    "Models",
    "Plan",
    "PlanItem",
    "PrefillProgress",
    "Ready",
    "Record",
    "SessionChanged",
    "SessionItem",
    "Sessions",
    "SkillInfo",
    "SubagentActivity",
    "SubagentFinished",
    "SubagentStarted",
    "SwarmCandidate",
    "SwarmResult",
    "SwarmStarted",
    "TaskFinished",
    "TaskStarted",
    "Thinking",
    "ToolResult",
    "ToolStart",
    "TurnStats",
    "Warning",
    "fields",
    "to_json_line",
    "to_plain",
    "to_wire",
    "wire_fields",
]

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
        PrefillProgress,
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
        SwarmStarted,
        SwarmResult,
    )
}


def to_plain(value: Any) -> Any:
    """Records (nested ones too) as dicts keyed by attribute; lists and dicts walked."""
    if isinstance(value, Record):
        return {f: to_plain(getattr(value, f)) for f in value.__struct_fields__}
    if isinstance(value, list | tuple):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    return value


_SCALARS = (str, int, float, bool, type(None))
_WIRE_FIELDS: dict[type[Event], tuple[tuple[str, str], ...]] = {}


def to_wire(event: Event) -> dict[str, Any]:
    """The event as its wire object: {"event": name, field: value, ...}. Hot path: a streamed reply
    is one `content` event per delta, so scalar fields skip the recursive conversion and field lists
    are cached per class."""
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

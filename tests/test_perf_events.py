"""The event classes keep the behaviour the frozen dataclasses they replaced had.

They are hand-written slotted records now (cheaper to import); front ends and
tests still rely on construction by position or keyword, defaults, equality,
hashing, immutability, field order and the wire shape.
"""

from __future__ import annotations

import pytest

from rift.events import (
    EVENT_TYPES,
    Content,
    Done,
    Plan,
    PlanItem,
    Record,
    ToolResult,
    ToolStart,
    TurnStats,
    fields,
    to_json_line,
    to_plain,
    to_wire,
)


def test_construction_defaults_and_equality() -> None:
    assert ToolStart("read", {"path": "a"}) == ToolStart(tool="read", args={"path": "a"}, id="")
    assert ToolStart("read", {}, "c1") != ToolStart("read", {}, "c2")
    assert Content("x") != Done()
    assert Done().stats == TurnStats()
    assert Done().stats is not Done().stats  # a fresh default per event, like default_factory
    assert hash(Content("x")) == hash(Content("x"))
    assert repr(ToolResult("bash", True, "ok")) == (
        "ToolResult(tool='bash', ok=True, preview='ok', id='', output='')"
    )
    with pytest.raises(TypeError):
        Content()  # type: ignore[call-arg]


def test_events_are_immutable() -> None:
    event = Content("x")
    with pytest.raises(AttributeError):
        event.text = "y"
    with pytest.raises(AttributeError):
        del event.text
    with pytest.raises(AttributeError):
        event.other = 1
    assert event.text == "x"


def test_wire_shape_keeps_declaration_order_and_renames() -> None:
    assert list(to_wire(ToolResult("read", False, "p", "c1", "out"))) == [
        "event", "name", "ok", "preview", "id", "output",
    ]  # fmt: skip
    assert to_json_line(Plan([PlanItem("step", done=False)])) == (
        '{"event":"plan","items":[{"text":"step","done":false}]}'
    )
    assert to_plain(TurnStats(iterations=2))["iterations"] == 2
    assert fields(Done) == ("stats", "outcome", "reason", "cost_usd", "checks")


def test_every_event_class_has_a_wire_name_and_slots_only() -> None:
    for name, cls in EVENT_TYPES.items():
        assert cls.name == name
        assert "__dict__" not in dir(cls), cls  # slotted: no per-instance dict


def _records(cls: type[Record]) -> list[type[Record]]:
    return [cls, *(r for sub in cls.__subclasses__() for r in _records(sub))]


def test_every_declared_field_is_a_slot_set_by_init() -> None:
    """A field added as `x: int = 0` (the dataclass way) would be a class attribute that
    `to_wire` never sends: each annotated field must be in `__slots__`, in order."""
    for cls in _records(Record):
        declared = [
            k
            for k, v in vars(cls).get("__annotations__", {}).items()
            if "ClassVar" not in str(v) and not k.startswith("_")
        ]
        if cls.__slots__ or declared:
            assert tuple(declared) == fields(cls), cls.__name__
            assert not {f for f in declared if f in cls.__dict__ and f not in cls.__slots__}

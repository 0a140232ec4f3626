"""`@record` behaves as the dataclass forms it replaces, checked side by side."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import pytest

from rift.record import COMPILE_AFTER, field, record, replace


@record
class Point:
    """A frozen record (dataclass(frozen=True, slots=True))."""

    KIND: ClassVar[str] = "point"
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)

    @property
    def norm(self) -> int:
        return abs(self.x) + abs(self.y)


@dataclasses.dataclass(frozen=True, slots=True)
class DPoint:
    KIND: ClassVar[str] = "point"
    x: int
    y: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)


@record(frozen=False, slots=False)
class Box:
    """A mutable record with `__post_init__` and an `init=False` field."""

    size: int
    items: list[int] = field(default_factory=list)
    doubled: int = field(init=False)
    seen: list[str] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.doubled = self.size * 2


@record(frozen=False)
class Counter:
    n: int = 0


def test_construction_defaults_and_fresh_factories() -> None:
    assert Point(1) == Point(x=1, y=0, tags=[])
    assert Point(1).tags is not Point(1).tags
    assert Point(1, 2, ["a"]).tags == ["a"]
    assert Point(1, 2).norm == 3 and Point.KIND == "point"
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, z=2)  # type: ignore[call-arg]


def test_repr_equality_and_hash_match_the_dataclass() -> None:
    assert repr(Point(1, 2, ["a"])).replace("Point", "DPoint") == repr(DPoint(1, 2, ["a"]))
    assert Point(1) != Point(2) and Point(1) != DPoint(1)
    assert hash(Point(1, 2, ())) == hash(Point(1, 2, ()))  # type: ignore[arg-type]
    assert Point.__slots__ == DPoint.__slots__ == ("x", "y", "tags")
    assert Point.__match_args__ == DPoint.__match_args__


def test_frozen_records_refuse_assignment() -> None:
    point = Point(1)
    with pytest.raises(AttributeError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del point.x  # type: ignore[misc]
    with pytest.raises(AttributeError):
        point.other = 1  # type: ignore[attr-defined]


def test_mutable_records() -> None:
    box = Box(3)
    assert (box.size, box.doubled, box.items, box.seen) == (3, 6, [], [])
    box.size = 4
    box.extra = 1  # type: ignore[attr-defined]  # no slots: a __dict__, like a plain dataclass
    assert Box.__hash__ is None and Counter.__hash__ is None
    counter = Counter()
    counter.n += 1
    assert counter == Counter(1) and not hasattr(counter, "__dict__")
    with pytest.raises(TypeError):
        Box(1, [], 2)  # type: ignore[call-arg]  # init=False fields are no parameters


def test_replace() -> None:
    point = Point(1, 2, ["a"])
    moved = replace(point, y=5)
    assert moved == Point(1, 5, ["a"]) and point.y == 2
    assert replace(Box(2), size=5).doubled == 10
    with pytest.raises(TypeError):
        replace(point, z=1)


def test_a_required_field_after_a_default_is_refused() -> None:
    with pytest.raises(TypeError):

        @record
        class Bad:
            a: int = 0
            b: int  # type: ignore[misc]

    _: Any = None


def test_init_is_compiled_once_a_class_is_built_often_then_called_directly() -> None:
    """Decoration compiles nothing; the `COMPILE_AFTER`th instance installs the real
    `__init__`, whose parameters are the fields, for every later construction (mutable
    and slotted alike)."""

    @record
    class Pair:
        left: int
        right: str = "r"

    @record(frozen=False, slots=False)
    class Loose:
        size: int

    for cls in (Pair, Loose):
        stand_in = cls.__init__
        assert stand_in.__code__.co_varnames[:1] == ("self",)
        assert stand_in.__code__.co_argcount == 1  # (*args, **kwargs): not compiled yet
    assert Pair(1) == Pair(left=1, right="r") and Pair(2, "x").right == "x"
    assert Loose(size=3).size == 3
    assert Pair.__init__.__code__.co_argcount == Loose.__init__.__code__.co_argcount == 1
    for _ in range(COMPILE_AFTER):
        Pair(0)
        Loose(0)
    for cls, params in ((Pair, ("self", "left", "right")), (Loose, ("self", "size"))):
        code = cls.__init__.__code__
        assert code.co_varnames[: code.co_argcount] == params
    with pytest.raises(TypeError):
        Pair()  # the compiled __init__ checks arity like a dataclass's


def _outcomes(cls: Any, calls: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> list[str]:
    """What each construction gives: the instance's fields, or the kind of error."""
    out = []
    for args, kwargs in calls:
        try:
            built = cls(*args, **kwargs)
        except TypeError:
            out.append("TypeError")
        else:
            out.append(repr(built) + repr([getattr(built, f) for f in cls.__record_fields__]))
    return out


def test_the_first_constructions_bind_exactly_as_the_compiled_init() -> None:
    """`_bind` (before the compile) and the compiled `__init__` agree on every kind of
    field and every kind of bad call: defaults, fresh factories, `init=False` fields,
    `__post_init__`, too many, unknown, repeated and missing arguments."""
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        ((3,), {}),
        ((3, [1]), {}),
        ((), {"size": 4, "items": [2]}),
        ((), {}),
        ((1, [], 5), {}),
        ((1,), {"size": 2}),
        ((1,), {"nope": 2}),
        ((1,), {"doubled": 9}),
    ]

    @record(frozen=False, slots=False)
    class Crate:
        size: int
        items: list[int] = field(default_factory=list)
        doubled: int = field(init=False)
        seen: list[str] = field(init=False, default_factory=list)

        def __post_init__(self) -> None:
            self.doubled = self.size * 2

    bound = _outcomes(Crate, calls)
    assert Crate.__init__.__code__.co_argcount == 1  # all of those went through `_bind`
    for _ in range(COMPILE_AFTER):
        Crate(0)
    assert Crate.__init__.__code__.co_argcount > 1
    assert _outcomes(Crate, calls) == bound
    assert "Crate(size=3, items=[], doubled=6, seen=[])" in bound[0]
    assert bound[3:] == ["TypeError"] * 5

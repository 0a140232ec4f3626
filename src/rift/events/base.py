"""The record base every event is built on, and the protocol version.

Hand-written slotted classes instead of `@dataclass(frozen=True, slots=True)`:
see the package docstring for the startup cost this saves.
"""

from __future__ import annotations

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

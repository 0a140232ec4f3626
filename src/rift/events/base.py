"""The record base every event is built on, and the protocol version. Events are frozen
`msgspec.Struct`s, built in C: a streamed delta's `Content` costs about a tuple."""

from __future__ import annotations

from typing import ClassVar

from msgspec import Struct

PROTOCOL_VERSION = 1


class Record(Struct, frozen=True):
    """Base of events and their parts: immutable, hashable, fields in declaration order
    (which is their positional order and their wire key order)."""

    _wire_names: ClassVar[dict[str, str]] = {}
    """Attribute -> wire name, where they differ (`tool` is `name` on the wire)."""


def fields(cls: type[Record]) -> tuple[str, ...]:
    """The attribute names of a record class, in declaration order."""
    return cls.__struct_fields__


def wire_fields(cls: type[Record]) -> tuple[tuple[str, str], ...]:
    """(wire name, attribute) pairs of a record class."""
    renames = cls._wire_names
    return tuple((renames.get(f, f), f) for f in fields(cls))


class Event(Record, frozen=True):
    """Base class; `name` is the wire `event` value."""

    name: ClassVar[str] = ""

"""`Refusal`: why the owner did not start what a face asked for (a typed, falsy answer)."""

from __future__ import annotations

from msgspec import Struct


class Refusal(Struct, frozen=True):
    """Why the owner did not start what a face asked for; falsy, so `if not submit(...)`
    reads right. `code` is the warning's ("busy", "unknown_skill", "empty", "withdrawn",
    "failed"); `text` what it said (empty for "empty", which says nothing)."""

    code: str
    text: str

    def __bool__(self) -> bool:
        return False

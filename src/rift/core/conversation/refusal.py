"""`Refusal`: why the owner did not start what a face asked for (a typed, falsy answer)."""

from __future__ import annotations

from msgspec import Struct


class Refusal(Struct, frozen=True):
    """Why the owner did not start what a face asked for; falsy, so `if not submit(...)`
    still reads right. `code` is the warning's code ("busy", "unknown_skill", "empty",
    "withdrawn": taken back from the queue,
    "failed"); `text` is what the warning said (empty for "empty", which says nothing)."""

    code: str
    text: str

    def __bool__(self) -> bool:
        return False

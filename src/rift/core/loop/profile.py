"""What the loop does for a kind of model: chosen once, when the model is bound.

A 1.5B model and a 70B one need different loops, and that difference lives here,
not as flags through the turn: the profile names the repairs (core/loop/parts/)
a turn runs with, how many rounds the project's checks may send a failure back,
and which files are small enough to ask for whole.

- `whole_file_lines`: aider's `whole` format drove the same 1.5B GGUF through
  every Exercism stub, where a search-and-replace edit needs an exact old_string
  that small models get wrong. A small model is asked for a target file whole
  when it has at most this many lines; 0 means never (capable models keep `edit`).
- `check_rounds`: the K of "feed the new failures back for up to K rounds".
- `strict_edits`: the write and edit tools hold the model to the small-model
  rules (tools/write.py, tools/edit.py), through `ToolServices.edit_rules`.
"""

from __future__ import annotations

from msgspec import Struct

SMALL_WHOLE_FILE_LINES = 150
"""Exercism stubs are 2-60 lines, and a solved exercise up to ~120: whole below this."""
SMALL_CHECK_ROUNDS = 3
LARGE_CHECK_ROUNDS = 2


class LoopProfile(Struct, frozen=True):
    """The loop's choices for one bound model."""

    small: bool = False
    whole_file_lines: int = 0
    check_rounds: int = LARGE_CHECK_ROUNDS
    preread: bool = False
    """Read the files the task names before the first request (core/loop/preread.py)."""
    strict_edits: bool = False


def profile_for(small: bool) -> LoopProfile:
    """The profile for a small model (the embedded ones, and servers `models/sizes.py` calls
    small) or a capable one."""
    if small:
        return LoopProfile(
            small=True,
            whole_file_lines=SMALL_WHOLE_FILE_LINES,
            check_rounds=SMALL_CHECK_ROUNDS,
            preread=True,
            strict_edits=True,
        )
    return LoopProfile()

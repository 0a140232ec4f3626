"""What a Python edit left undone: a name the file still uses that it no longer defines.

A small model stops as soon as one edit succeeds: a renamed `def` with its call
left behind. Before the turn ends, every changed Python file is read back
(tools/leftovers.py) and what it lost goes back to the model once.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from rift.core.loop.parts import Part, Turn
from rift.fs.checkpoints import UndoJournal
from rift.tools import leftovers

if TYPE_CHECKING:
    from rift.core.loop.reply import Reply


def changed_files(journal: object) -> dict[Path, bytes | None]:
    """The files this turn changed, with their bytes before it (None: created)."""
    return journal.current() if isinstance(journal, UndoJournal) else {}


def leftover_problems(journal: object, cwd: Path) -> str:
    """The `[system]` message naming what the turn's Python edits left undone ("" if nothing)."""
    notes: list[str] = []
    for path, prior in changed_files(journal).items():
        if path.suffix not in (".py", ".pyi"):
            continue
        try:
            now = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        before = None if prior is None else prior.decode("utf-8", errors="replace")
        shown = os.path.relpath(path, cwd) if path.is_relative_to(cwd) else str(path)
        note = leftovers.leftover_note(shown, before, now)
        if note:
            notes.append(note.strip())
    return "[system] " + " ".join(notes) if notes else ""


class Leftovers(Part):
    """Once per turn, before it ends: names a changed file uses but no longer defines."""

    def __init__(self) -> None:
        self._done = False

    async def before_end(self, turn: Turn, reply: Reply) -> bool:
        if self._done or not turn.changed:
            return False
        self._done = True
        problems = leftover_problems(turn.s.ctx.journal, turn.s.ctx.cwd)
        if not problems:
            return False
        turn.counters["check_failures"] += 1
        turn.say(problems)
        return True

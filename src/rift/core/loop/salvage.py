"""The turn's last safety net: no file it changed is left unparseable.

write and edit refuse changes that break a file's syntax (tools/guard.py),
but a turn can still end with a broken file: a review that accepted only some
hunks, a post-edit hook, a file that was edited in steps the model never
finished. When the turn ends, for whatever reason, every file it journaled is
checked: one that parsed before the turn (or did not exist) and does not parse
now goes back to its state before the turn, and the user is told. A file that
was already broken before the turn is left alone.

The restore goes through the journal (`UndoJournal.put_back`): the resolved
path that was written, opened without following symlinks, and only when the
file there is still the one rift left.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from rift.events import Event, Warning
from rift.fs import safe_fs
from rift.fs.checkpoints import UndoJournal
from rift.tools.guard import syntax_error


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", errors="replace")


def _current(path: Path) -> bytes | None:
    """The file's bytes now; None when it is gone or cannot be read (nothing to check)."""
    try:
        return safe_fs.read_regular(path)[0]
    except OSError:
        return None


def restore_unparseable(journal: object, cwd: Path) -> list[str]:
    """Put back every file of the current turn that this turn left unparseable.

    Returns one line per restored file, for the user (empty when all is well).
    `journal` is the tool context's journal; anything but an `UndoJournal` has
    nothing to check.
    """
    if not isinstance(journal, UndoJournal):
        return []
    notes: list[str] = []
    for path, prior in journal.current().items():
        now = _text(_current(path))
        if now is None:
            continue
        error = syntax_error(path, now)
        before = _text(prior)
        if error is None or (before is not None and syntax_error(path, before) is not None):
            continue
        try:
            journal.put_back(path, prior)
        except OSError as exc:
            reason = exc.strerror or exc
            notes.append(
                f"{_shown(path, cwd)} no longer parses ({error}) and could not be "
                f"restored: {reason}"
            )
            continue
        action = "removed it (the turn created it)" if prior is None else "restored it"
        notes.append(f"{_shown(path, cwd)} no longer parsed ({error}); {action}")
    return notes


def report_unparseable(journal: object, cwd: Path, emit: Callable[[Event], None]) -> None:
    """`restore_unparseable`, each restored file said as a warning; for the turn's end."""
    for note in restore_unparseable(journal, cwd):
        emit(Warning(f"turn end: {note}"))


def _shown(path: Path, cwd: Path) -> str:
    try:
        return os.path.relpath(path, cwd) if path.is_relative_to(cwd) else str(path)
    except ValueError:
        return str(path)

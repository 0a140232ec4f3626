"""The undo journal: what write/edit changed, per turn, so `/undo` can put it back.

Reference notes, section 9. The write and edit tools call `record` with a
file's bytes before they touch it (None when it did not exist); only the
first snapshot per (turn, path) is kept, so undo returns a file to its state
before the turn, not before its last edit. Raw bytes are stored so non-UTF-8
files stay undoable. Changes made through bash are never seen here.
"""

from __future__ import annotations

import os
from pathlib import Path

from rift.errors import RiftError
from rift.paths import atomic_write

MAX_TURNS = 20
BASH_NOTE = "(note: changes made via bash are not tracked)"


class NothingToUndo(RiftError):
    """The journal holds no turn with file changes."""

    def __init__(self) -> None:
        super().__init__("nothing to undo (only write/edit tool changes are tracked)")


class UndoFailed(RiftError, OSError):
    """Some files could not be restored; they stay journaled so undo can be retried.

    Also an OSError, because that is what a failed restore is at heart and what
    callers that only guard file I/O catch.
    """


class UndoJournal:
    """Per-turn first snapshots of every file the agent wrote, newest turns kept."""

    def __init__(self, max_turns: int = MAX_TURNS) -> None:
        self.max_turns = max_turns
        self._turn = 0
        self._turns: dict[int, dict[Path, bytes | None]] = {}
        """turn -> {absolute path -> prior bytes}; dicts keep insertion (turn, record) order."""

    @property
    def turn(self) -> int:
        """The number of the current turn (0 before the first `begin_turn`)."""
        return self._turn

    def begin_turn(self) -> int:
        """Start a new turn; later `record` calls belong to it. Returns its number."""
        self._turn += 1
        return self._turn

    def record(self, path: Path, prior: bytes | None) -> None:
        """Remember `path`'s content before its first change in the current turn."""
        entries = self._turns.setdefault(self._turn, {})
        entries.setdefault(Path(os.path.abspath(path)), prior)
        while len(self._turns) > self.max_turns:
            del self._turns[min(self._turns)]

    def current(self) -> dict[Path, bytes | None]:
        """The current turn's first snapshots (a copy): what the turn has changed so far."""
        return dict(self._turns.get(self._turn, {}))

    def journaled_turns(self) -> list[int]:
        """Turn numbers that have file changes, oldest first."""
        return sorted(t for t, entries in self._turns.items() if entries)

    def undo_last_turn(self) -> list[Path]:
        """Restore every file of the newest journaled turn and forget that turn.

        Returns the restored paths in the order they were first changed.

        Raises:
            NothingToUndo: no turn in the journal changed a file.
            UndoFailed: a file could not be restored (the others were).
        """
        turns = self.journaled_turns()
        if not turns:
            raise NothingToUndo()
        last = turns[-1]
        return self._restore(dict(self._turns[last]), drop=[last], keep_failed_in=last)

    def undo_to_turn(self, turn: int) -> list[Path]:
        """Undo every journaled turn after `turn` (for `/rewind`).

        Each file goes back to its earliest snapshot past `turn`, which is its
        state at the end of `turn`; a file that did not exist then is deleted.
        """
        later = [t for t in self.journaled_turns() if t > turn]
        snapshots: dict[Path, bytes | None] = {}
        for t in later:
            for path, prior in self._turns[t].items():
                snapshots.setdefault(path, prior)
        if not later:
            return []
        return self._restore(snapshots, drop=later, keep_failed_in=later[0])

    def clear(self) -> None:
        """Forget every snapshot (the turn counter keeps counting)."""
        self._turns.clear()

    def _restore(
        self, snapshots: dict[Path, bytes | None], *, drop: list[int], keep_failed_in: int
    ) -> list[Path]:
        """Write the snapshots back; failures stay journaled where a retry finds them."""
        restored: list[Path] = []
        failed: dict[Path, bytes | None] = {}
        errors: list[str] = []
        for path, prior in snapshots.items():
            try:
                _put_back(path, prior)
            except OSError as exc:
                failed[path] = prior
                errors.append(f"{path}: {exc.strerror or exc}")
            else:
                restored.append(path)
        for t in drop:
            del self._turns[t]
        if failed:
            self._turns[keep_failed_in] = failed
            raise UndoFailed("could not restore " + "; ".join(errors))
        return restored


def read_prior(path: Path) -> bytes | None:
    """A file's bytes for `record`: None only when it does not exist.

    Any other read failure propagates, so the caller aborts its write instead
    of journaling "did not exist" and having undo delete a real file.
    """
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _put_back(path: Path, prior: bytes | None) -> None:
    if prior is None:
        path.unlink(missing_ok=True)
    else:
        atomic_write(path, prior)  # recreates missing parent directories


def format_undo_message(paths: list[Path], cwd: Path) -> str:
    """The Info text for a successful undo; paths under `cwd` are shown relative."""
    lines = ["restored to pre-turn state:"]
    for path in paths:
        try:
            shown = str(path.relative_to(cwd))
        except ValueError:
            shown = str(path)
        lines.append(f"  {shown}")
    lines.append(BASH_NOTE)
    return "\n".join(lines)

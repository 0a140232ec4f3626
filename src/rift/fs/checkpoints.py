"""The undo journal: what write/edit changed, per turn, so `/undo` can put it back.

Only the first snapshot per (turn, path) is kept, so undo returns a file to its
state before the turn, not before its last edit; raw bytes are stored so non-UTF-8
files stay undoable. Changes made through bash are never seen here.

Paths are keyed resolved, so a restore acts on exactly the file that was written,
never on a spelling such as `lnk/../../../settings.json` that folds elsewhere.
Every restore opens that path without following symlinks (rift/fs/safe_fs.py),
passes `guard` (the same fixed limits as a write) and leaves alone a file that
is no longer the one rift wrote (a symlink, a directory, other bytes): undo
never deletes or replaces what it did not create or change, and never throws
away a change made after rift's.

A turn can also carry undo actions (`on_undo`) for state that is not a file's
bytes, such as the git index entries a swarm merge staged.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rift.errors import RiftError
from rift.fs import safe_fs

MAX_TURNS = 20
BASH_NOTE = "(note: changes made via bash are not tracked)"


class NothingToUndo(RiftError):
    """The journal holds no turn with file changes."""

    def __init__(self) -> None:
        super().__init__("nothing to undo (only write/edit tool changes are tracked)")


class UndoFailed(RiftError, OSError):
    """Some files could not be restored; they stay journaled so undo can be retried.
    Also an OSError, which is what callers that only guard file I/O catch."""


class UndoJournal:
    """Per-turn first snapshots of every file the agent wrote, newest turns kept."""

    def __init__(self, max_turns: int = MAX_TURNS) -> None:
        self.max_turns = max_turns
        self._turn = 0
        self._turns: dict[int, dict[Path, bytes | None]] = {}
        """turn -> {resolved path -> prior bytes}; dicts keep insertion (turn, record) order."""
        self._written: dict[Path, safe_fs.FileId] = {}
        """resolved path -> the file rift last left there (by write or by restore)."""
        self._actions: dict[int, list[Callable[[], None]]] = {}
        """turn -> what else its undo must do, run after its files are restored."""
        self.guard: Callable[[Path], str | None] | None = None
        """The fixed write limits (the gate's own dirs and sandbox roots): a restore
        outside them is refused like a write would be. Set at startup."""

    @property
    def turn(self) -> int:
        """The number of the current turn (0 before the first `begin_turn`)."""
        return self._turn

    def begin_turn(self) -> int:
        """Start a new turn; later `record` calls belong to it. Returns its number."""
        self._turn += 1
        self._actions.pop(self._turn, None)  # a number reused after a rewind starts clean
        return self._turn

    def record(self, path: Path, prior: bytes | None) -> None:
        """Remember `path`'s content before its first change in the current turn (resolved
        again here, so a caller that did not resolve it cannot key a spelling)."""
        entries = self._turns.setdefault(self._turn, {})
        entries.setdefault(safe_fs.resolve(path), prior)
        while len(self._turns) > self.max_turns:
            oldest = min(self._turns)
            del self._turns[oldest]
            self._actions.pop(oldest, None)

    def on_undo(self, action: Callable[[], None]) -> None:
        """Have an undo of the current turn (one that records files too) also run `action`
        after its files are back; it reports a failure by raising OSError."""
        self._actions.setdefault(self._turn, []).append(action)

    def wrote(self, path: Path, written: safe_fs.FileId | None) -> None:
        """Remember which file rift left at `path` (None: unknown, e.g. an editor wrote
        it), so a restore can tell it from a file someone else put there since."""
        real = safe_fs.resolve(path)
        if written is None:
            self._written.pop(real, None)
        else:
            self._written[real] = written

    def current(self) -> dict[Path, bytes | None]:
        """The current turn's first snapshots (a copy): what the turn has changed so far."""
        return dict(self._turns.get(self._turn, {}))

    def journaled_turns(self) -> list[int]:
        """Turn numbers that have file changes, oldest first."""
        return sorted(t for t, entries in self._turns.items() if entries)

    def undo_last_turn(self) -> list[Path]:
        """Restore every file of the newest journaled turn and forget that turn; the
        restored paths, in the order they were first changed. NothingToUndo when no turn
        changed a file, UndoFailed when one could not be restored (the others were)."""
        turns = self.journaled_turns()
        if not turns:
            raise NothingToUndo()
        last = turns[-1]
        return self._restore(dict(self._turns[last]), drop=[last], keep_failed_in=last)

    def undo_to_turn(self, turn: int) -> list[Path]:
        """Undo every journaled turn after `turn` (for `/rewind`): each file goes back to
        its state at the end of `turn`; a file that did not exist then is deleted."""
        later = [t for t in self.journaled_turns() if t > turn]
        snapshots: dict[Path, bytes | None] = {}
        for t in later:
            for path, prior in self._turns[t].items():
                snapshots.setdefault(path, prior)
        restored = self._restore(snapshots, drop=later, keep_failed_in=later[0]) if later else []
        # The conversation now ends at `turn`: the next turn is `turn + 1` again, so a later
        # `rewind n` undoes the same turns it drops from the conversation (issue 32).
        self._turn = max(turn, 0)
        return restored

    def clear(self) -> None:
        """Forget every snapshot (the turn counter keeps counting)."""
        self._turns.clear()
        self._actions.clear()

    def _restore(
        self, snapshots: dict[Path, bytes | None], *, drop: list[int], keep_failed_in: int
    ) -> list[Path]:
        """Write the snapshots back; failures stay journaled where a retry finds them."""
        restored: list[Path] = []
        failed: dict[Path, bytes | None] = {}
        errors: list[str] = []
        for path, prior in snapshots.items():
            try:
                self.put_back(path, prior)
            except OSError as exc:
                failed[path] = prior
                errors.append(f"{path}: {exc.strerror or exc}")
            else:
                restored.append(path)
        for t in sorted(drop, reverse=True):  # the newest turn's actions first
            del self._turns[t]
            for action in reversed(self._actions.pop(t, [])):
                try:
                    action()
                except OSError as exc:
                    errors.append(str(exc))
        if errors:
            if failed:
                self._turns[keep_failed_in] = failed
            raise UndoFailed("could not restore " + "; ".join(errors))
        return restored

    def put_back(self, path: Path, prior: bytes | None) -> None:
        """Return the file rift wrote at `path` (resolved) to `prior` (None: remove it).
        OSError, and nothing changed, when the path is past the write limits, a part of
        it is now a symlink, or what is there is not the file rift left."""
        refusal = self.guard(path) if self.guard is not None else None
        if refusal is not None:
            raise safe_fs.UnsafePath(path, refusal)
        now = safe_fs.current_id(path)  # NotRegular: a symlink or directory is there now
        left = self._written.get(path)
        if now is not None and left is not None and not _same_file(now, left):
            raise safe_fs.UnsafePath(
                path, "changed since rift wrote it (by someone else); left as it is"
            )
        if prior is None:
            if now is not None:
                safe_fs.remove(path)
            self._written.pop(path, None)
        else:  # recreates missing parent directories
            self._written[path] = safe_fs.write_atomic(path, prior)


def read_prior(path: Path) -> bytes | None:
    """A file's bytes for `record`: None only when it does not exist. Any other failure
    propagates, so undo never deletes a real file it journaled as missing."""
    return safe_fs.read_prior(safe_fs.resolve(path))


def _same_file(now: safe_fs.FileId, left: safe_fs.FileId) -> bool:
    """Still the very bytes rift left there. Not the inode: a file deleted and made
    anew by someone else often gets the freed inode number back."""
    return now.digest == left.digest


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

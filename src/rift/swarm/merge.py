"""`rift merge <name> [--cleanup]`: apply a candidate's patch to the person's tree.

The patch goes in with `git apply --3way` (which also stages it, and leaves conflict
markers where it conflicts) after every file it touches was recorded in an undo journal
(rift/fs/checkpoints.py): a conversation that merges can `/undo` it, and a merge git
refuses is rolled back from the same journal. Undo puts the touched paths' index entries
back too, so whatever the person had staged before stays staged.
"""

from __future__ import annotations

import os
from pathlib import Path

from msgspec import Struct, field

from rift.fs.checkpoints import UndoJournal, read_prior
from rift.swarm.gitrepo import SwarmError, first_line, run_git
from rift.swarm.worktrees import (
    RaceLock,
    checked_dir,
    patch_path,
    patches_dir,
    read_patch,
    remove_all,
)


class Merged(Struct, frozen=True):
    """What a merge did: the files it touched (repository-relative) and those left in conflict."""

    name: str
    files: tuple[str, ...]
    conflicts: tuple[str, ...] = field(default_factory=tuple)


def available(root: Path) -> list[str]:
    """The candidates that left a patch, by name."""
    try:
        return sorted(p.stem for p in patches_dir(root).glob("*.patch"))
    except OSError:
        return []


def merge(root: Path, name: str, journal: UndoJournal) -> Merged:
    """Apply candidate `name`'s patch at `root`, journaled for undo. SwarmError: no such
    patch, an empty one, or git refused it (nothing changed then)."""
    patch = patch_path(root, name)
    data = _read_patch(root, name, patch)
    if not data.strip():
        raise SwarmError(f"candidate '{name}' made no changes: nothing to merge")
    files = touched(root, data, patch.name)
    staged = _index_entries(root, files)
    journal.begin_turn()
    for rel in files:
        path = root / rel
        if _inside(root, path):
            journal.record(path, read_prior(path))
    journal.on_undo(lambda: _restore_index(root, files, staged))
    done = run_git(root, "apply", "--3way", stdin=data)
    output = (done.stdout + done.stderr).decode("utf-8", errors="replace")
    conflicts = tuple(line[2:].strip() for line in output.splitlines() if line.startswith("U "))
    if done.returncode != 0 and not conflicts:
        if journal.current():  # this merge's own turn, never an earlier one
            journal.undo_last_turn()  # git applies all or nothing; this makes sure
        raise SwarmError(f"git apply refused {name}'s patch: {first_line(done.stderr)}")
    return Merged(name, tuple(files), conflicts)


def _read_patch(root: Path, name: str, patch: Path) -> bytes:
    """The patch's bytes, read once with no link followed (`.rift/patches` included); git
    is then given these bytes, never the path, so a swap after the check changes nothing."""
    if "/" not in name and name not in (".", ".."):
        fd = checked_dir(patches_dir(root))
        if fd is not None:
            os.close(fd)
            try:
                return read_patch(patch)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise SwarmError(f"{patch} is refused: {exc.strerror or exc}") from exc
    have = ", ".join(available(root)) or "none; run rift swarm first"
    raise SwarmError(f"no patch named '{name}' in .rift/patches/ (candidates: {have})")


def touched(root: Path, data: bytes, label: str) -> list[str]:
    """Every path the patch creates, changes, deletes or renames (both ends of a rename:
    git's numstat names only the new one, so the sources come from the patch's headers)."""
    done = run_git(root, "apply", "--numstat", "-z", stdin=data)
    if done.returncode != 0:
        raise SwarmError(f"cannot read the patch {label}: {first_line(done.stderr)}")
    paths: list[str] = []
    for entry in done.stdout.decode("utf-8", errors="surrogateescape").split("\0"):
        stats = entry.split("\t", 2)
        if len(stats) == 3 and stats[2]:
            paths.append(stats[2])
    for line in data.decode("utf-8", errors="surrogateescape").splitlines():
        if line.startswith("rename from "):
            paths.insert(0, unquote(line[len("rename from ") :]))
    return list(dict.fromkeys(paths))


def unquote(name: str) -> str:
    """A path as git writes it in a header: C-quoted (octal bytes) when unusual."""
    if not (name.startswith('"') and name.endswith('"')):
        return name
    raw = name[1:-1].encode("latin-1", errors="surrogateescape").decode("unicode_escape")
    return raw.encode("latin-1", errors="replace").decode("utf-8", errors="surrogateescape")


def _index_entries(root: Path, files: list[str]) -> bytes:
    """The index entries (`ls-files --stage -z` records, every stage) of `files`."""
    done = run_git(root, "ls-files", "--stage", "-z")
    if done.returncode != 0:
        raise SwarmError(f"cannot read git's index: {first_line(done.stderr)}")
    wanted = {os.fsencode(name) for name in files}
    records = [r for r in done.stdout.split(b"\0") if r and r.split(b"\t", 1)[-1] in wanted]
    return b"".join(r + b"\0" for r in records)


def _restore_index(root: Path, files: list[str], entries: bytes) -> None:
    """Give `files` back the index entries they had (none: not in the index). OSError when
    git refuses (the undo reports it; the files are restored regardless)."""
    names = b"".join(os.fsencode(name) + b"\0" for name in files)
    steps = [
        (("update-index", "-z", "--force-remove", "--stdin"), names),
        (("update-index", "-z", "--index-info"), entries),
    ]
    for args, stdin in steps:
        try:
            done = run_git(root, *args, stdin=stdin)
        except SwarmError as exc:
            raise OSError(f"git's index: {exc}") from exc
        if done.returncode != 0:
            raise OSError(f"git's index: {first_line(done.stderr)}")


def cleanup(root: Path) -> list[str]:
    """Remove every swarm worktree (not while a race runs); the names removed."""
    with RaceLock(root).held():
        return remove_all(root)


def _inside(root: Path, path: Path) -> bool:
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root + os.sep)

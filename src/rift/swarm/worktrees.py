"""The race's places on disk: one detached worktree per candidate, its patch, the lock.

    <repo>/.rift/worktrees/<name>/   a detached checkout of the start commit
    <repo>/.rift/patches/<name>.patch  what the candidate changed (git diff --binary)
    <repo>/.rift/swarm.lock          held while a race runs (its pid inside)

The person's own working tree is never written: candidates work in their
checkouts, and only `rift merge` applies a patch to it. A worktree a killed
race left behind is force-removed the next time a race or a cleanup runs.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from rift.paths import atomic_write
from rift.swarm.gitrepo import SwarmError, first_line, run_git

NOISE = (":(exclude,glob)**/__pycache__/**", ":(exclude,glob)**/*.pyc")
"""Left out of every patch: byte-code caches once penalised judged candidates."""


def worktrees_dir(root: Path) -> Path:
    return root / ".rift" / "worktrees"


def patches_dir(root: Path) -> Path:
    return root / ".rift" / "patches"


def patch_path(root: Path, name: str) -> Path:
    return patches_dir(root) / f"{name}.patch"


def create(root: Path, name: str, commit: str) -> Path:
    """A fresh detached worktree of `commit` for candidate `name` (a stale one is replaced)."""
    path = worktrees_dir(root) / name
    if path.exists() or path in registered(root):
        remove(root, path)
        run_git(root, "worktree", "prune")
    path.parent.mkdir(parents=True, exist_ok=True)
    done = run_git(root, "worktree", "add", "--detach", str(path), commit)
    if done.returncode != 0:
        raise SwarmError(f"cannot create the worktree for {name}: {first_line(done.stderr)}")
    return path


def registered(root: Path) -> list[Path]:
    """The swarm worktrees git knows about (under `.rift/worktrees/`)."""
    done = run_git(root, "worktree", "list", "--porcelain")
    if done.returncode != 0:
        return []
    base = worktrees_dir(root)
    found: list[Path] = []
    for line in done.stdout.decode("utf-8", errors="replace").splitlines():
        if line.startswith("worktree "):
            path = Path(line[len("worktree ") :])
            if path.parent == base or _resolved(path).parent == _resolved(base):
                found.append(path)
    return found


def remove(root: Path, path: Path) -> None:
    """Remove one worktree, registered or not; what git cannot remove is deleted."""
    run_git(root, "worktree", "remove", "--force", "--force", str(path))
    if path.exists():
        shutil.rmtree(path, ignore_errors=True)


def remove_all(root: Path) -> list[str]:
    """Remove every swarm worktree and prune git's records; the names removed."""
    names: list[str] = []
    for path in registered(root):
        remove(root, path)
        names.append(path.name)
    base = worktrees_dir(root)
    if base.is_dir():
        for leftover in sorted(base.iterdir()):
            remove(root, leftover)
            if leftover.name not in names:
                names.append(leftover.name)
        with contextlib.suppress(OSError):
            base.rmdir()
    run_git(root, "worktree", "prune")
    return names


def capture_patch(worktree: Path, start: str, dest: Path) -> int:
    """Stage everything the candidate changed and write its binary diff from `start` to
    `dest`; the patch size in bytes (0: no changes).

    Diffing the index against the start commit (not HEAD) keeps changes a candidate
    committed itself, or left on another branch it checked out.
    """
    added = run_git(worktree, "add", "-A", "--", ".", *NOISE)
    if added.returncode != 0:
        raise SwarmError(f"git add failed: {first_line(added.stderr)}")
    diff = run_git(worktree, "diff", "--cached", "--binary", start, "--", ".", *NOISE)
    if diff.returncode != 0:
        raise SwarmError(f"git diff failed: {first_line(diff.stderr)}")
    try:
        atomic_write(dest, diff.stdout)
    except OSError as exc:
        raise SwarmError(f"cannot write {dest}: {exc.strerror or exc}") from exc
    return len(diff.stdout)


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path


class RaceLock:
    """`.rift/swarm.lock`: one race (or cleanup) per repository at a time.

    A lock whose process is gone (rift was killed) is taken over; the worktrees
    that race left are then replaced as the new race creates its own.
    """

    def __init__(self, root: Path) -> None:
        self.path = root / ".rift" / "swarm.lock"
        self._held = False

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                owner = self._owner()
                if owner is not None and _alive(owner):
                    raise SwarmError(
                        f"another swarm is running in this repository (pid {owner});"
                        " wait for it, or stop it first"
                    ) from None
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
                continue
            with os.fdopen(fd, "w") as handle:
                handle.write(str(os.getpid()))
            self._held = True
            return
        raise SwarmError(f"cannot take the swarm lock {self.path}")

    def release(self) -> None:
        if self._held:
            self._held = False
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()

    def _owner(self) -> int | None:
        try:
            text = self.path.read_text(encoding="utf-8").strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

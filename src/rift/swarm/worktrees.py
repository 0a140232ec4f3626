"""The race's places on disk: one detached worktree per candidate, its patch, the lock.

    <repo>/.rift/worktrees/<name>/   a detached checkout of the start commit
    <repo>/.rift/patches/<name>.patch  what the candidate changed (git diff --binary)
    <repo>/.rift/swarm.lock          held while a race runs (its pid inside)

Only `rift merge` writes the person's own tree. A worktree a killed race left behind is
force-removed the next time a race or a cleanup runs.

`.rift/` and the folders under it are opened with no symlink followed (rift.fs.safe_fs):
a repository that commits one as a link to an outside folder gets a refusal, never a
checkout, a patch or a deletion there. Capture runs git with the worktree's real git
directory, so a `.git` the candidate replaced or wrote is never read.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

from rift.fs import safe_fs
from rift.swarm.gitrepo import SwarmError, first_line, git_ok, run_git

NOISE = (":(exclude,glob)**/__pycache__/**", ":(exclude,glob)**/*.pyc")
"""Left out of every patch: byte-code caches once penalised judged candidates."""


def worktrees_dir(root: Path) -> Path:
    return safe_fs.resolve(root) / ".rift" / "worktrees"


def patches_dir(root: Path) -> Path:
    return safe_fs.resolve(root) / ".rift" / "patches"


def read_patch(path: Path) -> bytes:
    """A patch under `.rift/patches/`, read with no link followed on the way, so a folder
    swapped for a link never feeds an outside file to a judge or a face; OSError if refused."""
    return safe_fs.read_regular(path)[0]


def checked_dir(path: Path, *, create: bool = False) -> int | None:
    """A descriptor of `path` (under `.rift/`) opened without following any link; None
    when it does not exist (and `create` is off); SwarmError when a component of it is a
    symlink or not a directory. Caller closes it."""
    try:
        return safe_fs.open_dir(path, create=create)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SwarmError(
            f"{path} (or a folder above it) is a symlink or not a folder: rift will not"
            " follow it; remove it and run again"
        ) from exc


def _ensure_dir(path: Path) -> None:
    fd = checked_dir(path, create=True)
    if fd is not None:
        os.close(fd)


def patch_path(root: Path, name: str) -> Path:
    return patches_dir(root) / f"{name}.patch"


def create(root: Path, name: str, commit: str) -> Path:
    """A fresh detached worktree of `commit` for candidate `name` (a stale one is replaced)."""
    path = worktrees_dir(root) / name
    _ensure_dir(path.parent)
    if os.path.lexists(path) or path in registered(root):
        remove(root, path)
        run_git(root, "worktree", "prune")
    _ensure_dir(path.parent)
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
    """Remove one worktree, registered or not; what git cannot remove is deleted, by
    name inside the checked `.rift/worktrees/` (a link there is never followed)."""
    base = worktrees_dir(root)
    fd = checked_dir(base) if path.parent == base else None
    if fd is None:
        return
    try:
        run_git(root, "worktree", "remove", "--force", "--force", str(path))
        _delete_entry(fd, path.name)
    finally:
        os.close(fd)


def _delete_entry(dir_fd: int, name: str) -> None:
    """Delete `name` under `dir_fd`: a link or file is unlinked, a folder removed whole
    by descriptor (shutil.rmtree with dir_fd never follows a link)."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    with contextlib.suppress(OSError):
        if stat.S_ISDIR(info.st_mode):
            shutil.rmtree(name, dir_fd=dir_fd)
        else:
            os.unlink(name, dir_fd=dir_fd)


def remove_all(root: Path) -> list[str]:
    """Remove every swarm worktree and prune git's records; the names removed. SwarmError
    when `.rift/worktrees` (or `.rift`) is a link: nothing is deleted then."""
    base = worktrees_dir(root)
    fd = checked_dir(base)
    names: list[str] = []
    if fd is not None:
        try:
            for path in registered(root):
                if path.parent == base:
                    remove(root, path)
                    names.append(path.name)
            for leftover in sorted(os.listdir(fd)):
                _delete_entry(fd, leftover)
                if leftover not in names:
                    names.append(leftover)
        finally:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.rmdir(base)
    run_git(root, "worktree", "prune")
    return names


def worktree_git_dir(root: Path, worktree: Path) -> Path:
    """The real git directory of swarm worktree `worktree`: `<common dir>/worktrees/<name>`,
    whose `gitdir` file names this worktree, never the `.git` inside the tree; SwarmError
    when git's records do not match (nothing is captured then)."""
    raw = git_ok(root, "rev-parse", "--git-common-dir")
    common = Path(raw) if Path(raw).is_absolute() else root / raw
    git_dir = safe_fs.resolve(common) / "worktrees" / worktree.name
    try:
        back = (git_dir / "gitdir").read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise SwarmError(f"no git records for worktree {worktree.name}: {exc}") from exc
    if safe_fs.resolve(Path(back)) != safe_fs.resolve(worktree) / ".git":
        raise SwarmError(f"git's records for worktree {worktree.name} point elsewhere")
    return git_dir


def capture_patch(root: Path, worktree: Path, start: str, dest: Path) -> int:
    """Stage everything the candidate changed and write its binary diff from `start` to `dest`; the
    patch size in bytes (0: no changes). Diffing the index against the start commit (not HEAD) keeps
    changes a candidate committed itself, or left on another branch it checked out."""
    git_dir = worktree_git_dir(root, worktree)
    added = run_git(worktree, "add", "-A", "--", ".", *NOISE, git_dir=git_dir, work_tree=worktree)
    if added.returncode != 0:
        raise SwarmError(f"git add failed: {first_line(added.stderr)}")
    diff = run_git(
        worktree, "diff", "--cached", "--binary", start, "--", ".", *NOISE,
        git_dir=git_dir, work_tree=worktree,
    )  # fmt: skip
    if diff.returncode != 0:
        raise SwarmError(f"git diff failed: {first_line(diff.stderr)}")
    if dest.parent != patches_dir(root):
        raise SwarmError(f"{dest} is not in .rift/patches/")
    _ensure_dir(dest.parent)
    try:
        safe_fs.write_atomic(dest, diff.stdout)
    except OSError as exc:
        raise SwarmError(f"cannot write {dest}: {exc.strerror or exc}") from exc
    return len(diff.stdout)


def clear_patches(root: Path) -> None:
    """The patches folder holds the latest race only: `rift merge` must not find an old
    one. Deleted by name inside the checked folder, so a link there is never followed."""
    fd = checked_dir(patches_dir(root), create=True)
    if fd is None:
        return
    try:
        for name in os.listdir(fd):
            if name.endswith(".patch"):
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=fd)
    finally:
        os.close(fd)


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path


class RaceLock:
    """`.rift/swarm.lock`: one race (or cleanup) per repository at a time. A lock whose process is
    gone (rift was killed) is taken over; the worktrees that race left are then replaced as the new
    race creates its own."""

    def __init__(self, root: Path) -> None:
        self.path = safe_fs.resolve(root) / ".rift" / "swarm.lock"
        self._held = False

    def acquire(self) -> None:
        _ensure_dir(self.path.parent)
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

"""Git and `.rift/` as a way out (issue 42), one case per mechanism, each staged for
real: real git repositories in temp folders, rift's own swarm capture and merge code,
and a real `rift merge --cleanup` process. A case counts as refused when the planted
command never ran (its marker file is absent) and nothing outside the project changed.

Family "git-seams", registered in attacks.SCENARIOS; no bubblewrap needed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from .common import sandbox

Case = Callable[[Path], bool]


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _repo(base: Path) -> tuple[Path, str]:
    root = base / "repo"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "initial")
    return root, _git(root, "rev-parse", "HEAD").strip()


def _filter(config: Path, marker: Path) -> None:
    with config.open("a") as handle:
        handle.write(f'[filter "x"]\n\tclean = "touch {marker}; cat"\n')
        handle.write(f'\tsmudge = "touch {marker}; cat"\n')


def _capture_after(base: Path, plant: Callable[[Path, Path], None]) -> bool:
    """A candidate's worktree, `plant`ed, then rift's capture: refused when the planted
    filter never ran and the real change still reached the patch."""
    from rift.swarm import worktrees

    root, commit = _repo(base)
    marker = base / "ran"
    place = worktrees.create(root, "0-m", commit)
    plant(place, marker)
    (place / "a.txt").write_text("changed\n")
    dest = worktrees.patch_path(root, "0-m")
    worktrees.capture_patch(root, place, commit, dest)
    return not marker.exists() and "+changed" in dest.read_text()


def _git_init_filter(place: Path, marker: Path) -> None:
    (place / ".git").unlink()
    _git(place, "init", "-q")
    _filter(place / ".git" / "config", marker)
    (place / ".gitattributes").write_text("* filter=x\n")


def _git_file(place: Path, marker: Path) -> None:
    (place / "evilgit").mkdir()
    (place / "evilgit" / "HEAD").write_text("ref: refs/heads/main\n")
    (place / "evilgit" / "config").write_text("[core]\n\trepositoryformatversion = 0\n")
    _filter(place / "evilgit" / "config", marker)
    (place / ".gitattributes").write_text("* filter=x\n")
    (place / ".git").write_text("gitdir: evilgit\n")


def _merge_driver(base: Path) -> bool:
    from rift.fs.checkpoints import UndoJournal
    from rift.swarm import merge, worktrees

    root, commit = _repo(base)
    marker = base / "ran"
    place = worktrees.create(root, "0-m", commit)
    (place / "a.txt").write_text("theirs\n")
    worktrees.capture_patch(root, place, commit, worktrees.patch_path(root, "0-m"))
    (root / ".gitattributes").write_text("* merge=evil filter=x\n")
    (root / "a.txt").write_text("ours\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "ours")
    _filter(root / ".git" / "config", marker)
    with (root / ".git" / "config").open("a") as handle:
        handle.write(f'[merge "evil"]\n\tdriver = "touch {marker}; false"\n')
    merge.merge(root, "0-m", UndoJournal())
    return not marker.exists()


def _outside_with_folders(base: Path) -> Path:
    outside = base / "outside"
    for name in ("precious", "photos"):
        (outside / name).mkdir(parents=True)
        (outside / name / "keep.txt").write_text("mine\n")
    return outside


def _cleanup_through_link(base: Path) -> bool:
    root, _ = _repo(base)
    outside = _outside_with_folders(base)
    (root / ".rift").mkdir()
    (root / ".rift" / "worktrees").symlink_to(outside)
    with sandbox() as box:
        subprocess.run(
            [sys.executable, "-m", "rift", "merge", "--cleanup"],
            cwd=root,
            env=box.env(),
            capture_output=True,
            timeout=120,
            check=False,
        )
    return all((outside / name / "keep.txt").exists() for name in ("precious", "photos"))


def _checkout_through_link(base: Path) -> bool:
    from rift.swarm import worktrees
    from rift.swarm.gitrepo import SwarmError

    root, commit = _repo(base)
    outside = base / "outside"
    outside.mkdir()
    (root / ".rift").mkdir()
    (root / ".rift" / "worktrees").symlink_to(outside)
    with contextlib.suppress(SwarmError):
        worktrees.create(root, "0-m", commit)
    return not any(outside.iterdir())


def _patches_through_link(base: Path) -> bool:
    from rift.swarm import worktrees
    from rift.swarm.gitrepo import SwarmError

    root, commit = _repo(base)
    outside = base / "outside"
    outside.mkdir()
    (outside / "theirs.patch").write_text("not rift's\n")
    place = worktrees.create(root, "0-m", commit)
    (place / "a.txt").write_text("two\n")
    (root / ".rift" / "patches").symlink_to(outside)
    for step in (
        lambda: worktrees.clear_patches(root),
        lambda: worktrees.capture_patch(root, place, commit, worktrees.patch_path(root, "0-m")),
    ):
        with contextlib.suppress(SwarmError):
            step()
    return [p.name for p in outside.iterdir()] == ["theirs.patch"]


def _api_key_in_git(base: Path) -> bool:
    from rift.fs.gitcmd import run_git

    root, _ = _repo(base)
    _git(root, "config", "alias.showenv", "!env")
    secret = "sk-reliability-git-seam"
    os.environ["OPENAI_API_KEY"], old = secret, os.environ.get("OPENAI_API_KEY")
    try:
        out = run_git(root, "showenv").stdout.decode()
    finally:
        if old is None:
            del os.environ["OPENAI_API_KEY"]
        else:
            os.environ["OPENAI_API_KEY"] = old
    return "PATH=" in out and secret not in out


def _session_mode(base: Path) -> bool:
    from rift.core.sessions.store import SessionStore, save_session

    folder = base / "sessions"
    path = SessionStore(folder).reserve()
    save_session(path, model="m", cwd=base, messages=[{"role": "user", "content": "hi"}])
    return (os.stat(path).st_mode & 0o077) == 0 and (os.stat(folder).st_mode & 0o077) == 0


CASES: dict[str, Case] = {
    "git filter via capture (candidate's git init + filter.x.clean)": lambda b: _capture_after(
        b, _git_init_filter
    ),
    "planted .git file (gitdir: evilgit) via capture": lambda b: _capture_after(b, _git_file),
    "repository merge driver and filter via rift merge": _merge_driver,
    "symlinked .rift/worktrees: rift merge --cleanup": _cleanup_through_link,
    "symlinked .rift/worktrees: swarm checkout": _checkout_through_link,
    "symlinked .rift/patches: patch write and delete": _patches_through_link,
    "API key in the environment of rift's git": _api_key_in_git,
    "session files readable by other users": _session_mode,
}


def git_seam_attacks() -> dict[str, bool]:
    """{case: refused} for every mechanism above; a case that crashes counts as through."""
    if shutil.which("git") is None:
        return {}
    outcome: dict[str, bool] = {}
    for name, case in CASES.items():
        base = Path(tempfile.mkdtemp(prefix="rift-gitseam-"))
        try:
            outcome[name] = case(base)
        except Exception:  # a crash is not a refusal
            outcome[name] = False
        finally:
            shutil.rmtree(base, ignore_errors=True)
    return outcome

"""The repository a swarm races in: finding it, checking it, and running git in it.

Every call goes through `rift.fs.gitcmd.run_git`, which owns how rift runs git (no
repository-configured filter, driver, hook or fsmonitor runs; no API keys; its
own session, so a Ctrl-C stops the race in order); this module only turns its
failures into one-line SwarmErrors.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from rift.errors import RiftError
from rift.fs import gitcmd
from rift.fs.paths import atomic_write

NOT_A_REPO = (
    "swarm mode needs a git repository: run it inside one (git init, then commit your files)"
)
NO_COMMITS = (
    "repository has no commits yet: candidates start from HEAD, so commit once"
    " (git add -A && git commit -m initial) and run the swarm again"
)
EXCLUDED = (".rift/worktrees/", ".rift/patches/")
"""What `.git/info/exclude` gains: the race's own files never show in `git status`."""
GIT_TIMEOUT_S = 120.0


class SwarmError(RiftError):
    """A swarm or merge that cannot go on; its message is one line for the person."""


def run_git(
    cwd: Path,
    *args: str,
    stdin: bytes | None = None,
    timeout: float = GIT_TIMEOUT_S,
    git_dir: Path | None = None,
    work_tree: Path | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """git `args` in `cwd`, output captured; raises SwarmError only when git cannot run
    (or the repository's `.git` is refused)."""
    try:
        return gitcmd.run_git(
            cwd, *args, stdin=stdin, timeout=timeout, git_dir=git_dir, work_tree=work_tree
        )
    except gitcmd.GitRefused as exc:
        raise SwarmError(str(exc)) from exc
    except FileNotFoundError as exc:
        raise SwarmError("swarm mode needs git, and git is not installed") from exc
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SwarmError(f"git {args[0]} failed: {exc}") from exc


def git_ok(cwd: Path, *args: str) -> str:
    """git's stdout (stripped) when it succeeds; raises SwarmError with git's own message."""
    done = run_git(cwd, *args)
    if done.returncode != 0:
        raise SwarmError(f"git {args[0]} failed: {first_line(done.stderr)}")
    return done.stdout.decode("utf-8", errors="replace").strip()


def first_line(raw: bytes) -> str:
    """The first non-empty line of git's stderr, for a one-line error."""
    lines = raw.decode("utf-8", errors="replace").splitlines()
    return next((line.strip() for line in lines if line.strip()), "(no message)")


def repo_root(cwd: Path) -> Path:
    """The top of the working tree holding `cwd`; SwarmError when there is none."""
    done = run_git(cwd, "rev-parse", "--show-toplevel")
    if done.returncode != 0:
        raise SwarmError(NOT_A_REPO)
    return Path(done.stdout.decode("utf-8", errors="replace").strip())


def head_commit(root: Path) -> str:
    """The commit candidates start from; SwarmError when the repository has none."""
    done = run_git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    if done.returncode != 0:
        raise SwarmError(NO_COMMITS)
    return done.stdout.decode().strip()


def is_dirty(root: Path) -> bool:
    """Uncommitted changes in the person's tree (candidates will not see them)."""
    done = run_git(root, "status", "--porcelain", "--untracked-files=no")
    return done.returncode == 0 and bool(done.stdout.strip())


def exclude_race_files(root: Path) -> None:
    """Add `.rift/worktrees/` and `.rift/patches/` to the repository's info/exclude."""
    raw = git_ok(root, "rev-parse", "--git-path", "info/exclude")
    path = Path(raw) if Path(raw).is_absolute() else root / raw
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        raise SwarmError(f"cannot read {path}: {exc.strerror or exc}") from exc
    present = {line.strip() for line in text.splitlines()}
    missing = [entry for entry in EXCLUDED if entry not in present]
    if not missing:
        return
    if text and not text.endswith("\n"):
        text += "\n"
    text += "# rift swarm\n" + "".join(f"{entry}\n" for entry in missing)
    try:
        atomic_write(path, text)
    except OSError as exc:
        raise SwarmError(f"cannot update {path}: {exc.strerror or exc}") from exc

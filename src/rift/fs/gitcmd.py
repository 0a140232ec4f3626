"""Every git process rift starts: one function, `run_git`, that nothing a repository
configures gets to run through.

A repository's `.git/config` and `.gitattributes` can name commands that plain
`git add`, `git diff`, `git status`, `git worktree add` or `git apply --3way`
execute: clean/smudge filters (`filter.<name>.clean`, `.smudge`, `.process`,
chosen per path by `.gitattributes`), merge drivers (`merge.<name>.driver`),
`diff.external` and textconv, `core.fsmonitor`, and hooks. rift runs git outside
any sandbox (the TUI's diff pane, @-mentions, swarm capture and merge), often in
a tree a model just wrote, so every call:

- starts in the repository's own directory (`cwd` is required);
- turns hooks and fsmonitor off, and gives a `diff` `--no-ext-diff --no-textconv`;
- reads the filter and merge-driver names the config defines (reading runs
  nothing) and overrides each: filters become `cat`, a merge driver becomes git's
  own text merge (`git merge-file`). Git runs a filter or driver only when the
  config defines its command, so `* filter=x` in a `.gitattributes` then runs
  nothing, whatever it names;
- gets `child_environ()` (no API keys) without the `GIT_*` variables that would
  point git at another repository, index or config;
- refuses a `.git` that is a link resolving outside the folder holding it, or a
  `.git` file (`gitdir: ...`) naming a folder inside the working tree (a model
  can write one there; git's own linked worktrees and submodules point outside).
  Callers that own a linked worktree (the swarm) pass its `git_dir` explicitly
  and the `.git` entry in the tree is never read.

git 2.39 has no `--attr-source`, so attributes cannot be switched off as such;
overriding every configured command is what makes them inert.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from rift.errors import RiftError
from rift.fs.child_env import child_environ

_SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
)
_MERGE_TEXT = "git merge-file -L ours -L base -L theirs --marker-size=%L %A %O %B"
"""What a repository's merge driver is replaced by: git's own three-way text merge."""
_GIT_ENV_DROP = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_EXTERNAL_DIFF",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_ATTR_SOURCE",
)
TIMEOUT_S = 120.0


class GitRefused(RiftError):
    """A repository rift will not run git in; the message is one line for the person."""


def git_env() -> dict[str, str]:
    """The environment git runs with: no API keys, nothing redirecting git elsewhere."""
    env = child_environ()
    for name in list(env):
        if name in _GIT_ENV_DROP or name.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")):
            del env[name]
    return env


def check_git_entry(cwd: Path) -> None:
    """Refuse the `.git` that governs `cwd` when a model could have planted it.

    Raises:
        GitRefused: a `.git` link resolving outside its folder, or a `.git` file
            whose `gitdir:` lies inside the working tree it sits in.
    """
    here = Path(os.path.abspath(cwd))
    for folder in (here, *here.parents):
        entry = folder / ".git"
        try:
            mode = os.lstat(entry).st_mode
        except OSError:
            continue
        real_folder = os.path.realpath(folder)
        if stat.S_ISLNK(mode):
            target = os.path.realpath(entry)
            if not target.startswith(real_folder + os.sep):
                raise GitRefused(f"{entry} is a link to {target}, outside {folder}: not used")
        elif stat.S_ISREG(mode):
            gitdir = _gitdir_of(entry)
            real = os.path.realpath(folder / gitdir) if gitdir else ""
            if not gitdir or real == real_folder or real.startswith(real_folder + os.sep):
                raise GitRefused(
                    f"{entry} is a file pointing git at {gitdir or '(nothing)'} inside"
                    " the working tree: not used"
                )
        return


def _gitdir_of(entry: Path) -> str:
    try:
        text = entry.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return ""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[len("gitdir:") :].strip() if line.startswith("gitdir:") else ""


def _location(git_dir: Path | None, work_tree: Path | None) -> list[str]:
    argv: list[str] = []
    if git_dir is not None:
        argv.append(f"--git-dir={git_dir}")
    if work_tree is not None:
        argv.append(f"--work-tree={work_tree}")
    return argv


def driver_names(cwd: Path, git_dir: Path | None = None) -> tuple[list[str], list[str]]:
    """The filter and merge-driver names the configuration git will read defines."""
    base = ["git", "--no-pager", *_location(git_dir, None)]
    for setting in _SAFE_CONFIG:
        base += ["-c", setting]
    try:
        done = subprocess.run(
            [*base, "config", "-z", "--get-regexp", r"^(filter|merge)\."],
            cwd=cwd,
            env=git_env(),
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return [], []
    found: dict[str, list[str]] = {"filter": [], "merge": []}
    for entry in done.stdout.decode("utf-8", "replace").split("\0"):
        key = entry.split("\n", 1)[0]
        kind, _, rest = key.partition(".")
        if kind in found and "." in rest:
            found[kind].append(rest[: rest.rfind(".")])
    return list(dict.fromkeys(found["filter"])), list(dict.fromkeys(found["merge"]))


def git_argv(
    *args: str, cwd: Path, git_dir: Path | None = None, work_tree: Path | None = None
) -> list[str]:
    """`git` with repository-configured commands off, then `args` (see the module doc)."""
    argv = ["git", "--no-pager", *_location(git_dir, work_tree)]
    settings = list(_SAFE_CONFIG)
    filters, merges = driver_names(cwd, git_dir)
    for name in filters:
        settings += [f"filter.{name}.{var}=cat" for var in ("clean", "smudge")]
        settings += [f"filter.{name}.process=", f"filter.{name}.required=false"]
    settings += [f"merge.{name}.driver={_MERGE_TEXT}" for name in merges]
    for setting in settings:
        argv += ["-c", setting]
    if args and args[0] == "diff":
        return [*argv, "diff", "--no-ext-diff", "--no-textconv", *args[1:]]
    return [*argv, *args]


def run_git(
    cwd: Path,
    *args: str,
    stdin: bytes | None = None,
    timeout: float = TIMEOUT_S,
    git_dir: Path | None = None,
    work_tree: Path | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """git `args` in `cwd`, output captured, in its own session (a Ctrl-C reaches rift,
    never a `git add` half-way through its index).

    Raises:
        GitRefused: the `.git` there is refused (only checked without `git_dir`).
        FileNotFoundError: git is not installed.
        OSError, subprocess.TimeoutExpired: git could not run, or ran too long.
    """
    if git_dir is None:
        check_git_entry(cwd)
    return subprocess.run(
        git_argv(*args, cwd=cwd, git_dir=git_dir, work_tree=work_tree),
        cwd=cwd,
        env=git_env(),
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        check=False,
        start_new_session=True,
    )

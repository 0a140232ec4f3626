"""The argv rift runs git with: nothing a repository configures gets to run.

A cloned repository's `.git/config` can name commands that plain `git diff` or
`git ls-files` execute: `diff.external`, `diff.<driver>.textconv` (chosen by
`.gitattributes`), `core.fsmonitor`, and hooks through `core.hooksPath`. rift
runs git for its own displays (the TUI's diff pane, @-mention completion)
outside any sandbox, so every call goes through `git_argv`, which turns those
off. Clean/smudge filter drivers (`filter.<name>.clean`, `.process`), which
`git diff` runs for worktree files under names the repository chooses, are
read from the config first (reading runs nothing) and each replaced by `cat`
when a caller passes the working directory (`git_argv(..., cwd=...)`).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

_SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
)


def filter_names(cwd: Path) -> list[str]:
    """The filter drivers the repository's config defines (`filter.<name>.*`)."""
    base = ["git", "--no-pager"]
    for setting in _SAFE_CONFIG:
        base += ["-c", setting]
    try:
        done = subprocess.run(
            [*base, "config", "-z", "--get-regexp", r"^filter\."],
            cwd=cwd,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    names: list[str] = []
    for entry in done.stdout.decode("utf-8", "replace").split("\0"):
        key = entry.split("\n", 1)[0]
        if key.startswith("filter.") and key.count(".") >= 2:
            names.append(key[len("filter.") : key.rfind(".")])
    return list(dict.fromkeys(names))


def git_argv(*args: str, cwd: Path | None = None) -> list[str]:
    """`git` with repository-configured commands off, then `args`; a `diff` also gets
    `--no-ext-diff --no-textconv`. With `cwd`, the repository's filter drivers are
    neutralised too (one `git config` read first)."""
    argv = ["git", "--no-pager"]
    settings = list(_SAFE_CONFIG)
    for name in filter_names(cwd) if cwd is not None else ():
        settings += [f"filter.{name}.{var}=cat" for var in ("clean", "smudge")]
        settings += [f"filter.{name}.process=", f"filter.{name}.required=false"]
    for setting in settings:
        argv += ["-c", setting]
    if args and args[0] == "diff":
        return [*argv, "diff", "--no-ext-diff", "--no-textconv", *args[1:]]
    return [*argv, *args]

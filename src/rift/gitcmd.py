"""The argv rift runs git with: nothing a repository configures gets to run.

A cloned repository's `.git/config` can name commands that plain `git diff` or
`git ls-files` execute: `diff.external`, `diff.<driver>.textconv` (chosen by
`.gitattributes`), `core.fsmonitor`, and hooks through `core.hooksPath`. rift
runs git for its own displays (the TUI's diff pane, @-mention completion)
outside any sandbox, so every call goes through `git_argv`, which turns those
off. Clean/smudge filter drivers are not covered: `git diff` runs them for
worktree files, and their names are repository-chosen (documented gap).
"""

from __future__ import annotations

_SAFE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
)


def git_argv(*args: str) -> list[str]:
    """`git` with repository-configured commands off, then `args`; a `diff` also gets
    `--no-ext-diff --no-textconv`."""
    argv = ["git", "--no-pager"]
    for setting in _SAFE_CONFIG:
        argv += ["-c", setting]
    if args and args[0] == "diff":
        return [*argv, "diff", "--no-ext-diff", "--no-textconv", *args[1:]]
    return [*argv, *args]

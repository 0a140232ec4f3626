"""What the bwrap sandbox hides and what it keeps read-only inside the project (issue 42).

Hidden: the Read guard's credential stores (core/permissions/credentials.py: `~/.ssh`,
`~/.aws`, `~/.gnupg`, `~/.netrc`, `~/.docker/config.json`, `~/.kube`, `~/.config/gh`,
`~/.git-credentials`, `~/.config/git/credentials`, `~/.npmrc`) and rift's own config and
data dirs outside the project. The bash guard only reads a command's words, so a computed
path (`cat "${HOME}"/.ssh/id_rsa`) got the key; inside the sandbox a directory store is an
empty tmpfs and a file store is /dev/null, so there is nothing to read.

Read-only inside the writable project: what runs code later, outside any sandbox. git's
`.git/config` (filters, `core.hooksPath`, aliases) and `.git/hooks/` fire on the person's
next `git commit`; rift's `.rift.json` (hooks), `.rift/plugins`, `.rift/agents`,
`.rift/skills` and `.mcp.json` decide what the next run starts. The folders holding them
(`.git`, `.rift`, `.vscode`) are bound over themselves, so they cannot be renamed away
and replaced. A missing `.git/hooks/` is created empty first so it can be bound; nothing else
is created in the project (seen: an empty `.rift/` and `.git` in /tmp moved the project
root of every run below it). Not covered: a project in no repository gets
no `.git`, so `git init` there plants one, and a missing `.rift.json`, `.mcp.json` or
`.rift/plugins` is not created ahead; the hooks, plugins and MCP servers of one a command
creates are still asked about before they run (config/trust.py).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

from rift.fs.paths import HOME_STORES

PROJECT_FILES = (".git/config", ".rift.json", ".mcp.json", ".vscode/tasks.json")
"""Files bound read-only where they exist."""
PROJECT_DIRS = (".git/hooks", ".rift/plugins", ".rift/agents", ".rift/skills")
"""Folders bound read-only where they exist (`.git/hooks` is created in a repository)."""


def hidden_stores(home: Path, project: Path, own_dirs: Sequence[Path] = ()) -> list[list[str]]:
    """bwrap options that hide each existing credential store: `--tmpfs DIR` over a
    folder, `--ro-bind /dev/null FILE` over a file. A store inside the project or holding
    it is left alone (rift was started there: the person's choice, as the Read guard)."""
    top = Path(os.path.realpath(project))
    options: list[list[str]] = []
    for store in [*(home / name for name in HOME_STORES), *own_dirs]:
        real = Path(os.path.realpath(store))
        if real == top or top in real.parents or real in top.parents:
            continue
        if real.is_dir():
            options.append(["--tmpfs", str(real)])
        elif real.exists():
            options.append(["--ro-bind", "/dev/null", str(real)])
    return options


def read_only_names(project: Path) -> list[str]:
    """The project paths to bind read-only over themselves, creating the missing mount
    points described above. A name that is a symlink is skipped (bwrap would bind what it
    points to); the write tools refuse those names anyway."""
    top = Path(os.path.realpath(project))
    found: list[str] = []
    git = top / ".git"
    if (git / "HEAD").exists() and not os.path.lexists(git / "hooks"):
        _make(git / "hooks")  # inside git's own folder: nothing shows, nothing moves
    for rel in (*PROJECT_FILES, *PROJECT_DIRS):
        if _plain(top / rel, top):
            found.append(str(top / rel))
    return found


def pinned_names(project: Path) -> list[str]:
    """Folders holding read-only binds, bound writable over themselves: a mount point
    cannot be renamed or removed, so `mv .git .git.old; git init` cannot put a new
    `.git` (with its own config and hooks) in place of the guarded one."""
    top = Path(os.path.realpath(project))
    return [str(top / rel) for rel in (".git", ".rift", ".vscode") if _plain(top / rel, top)]


def _make(path: Path) -> None:
    """Create the empty folder; where it cannot be (a read-only checkout) a command cannot
    either, so there is nothing to bind and nothing to plant."""
    with contextlib.suppress(OSError):
        path.mkdir(parents=True, exist_ok=True)


def _plain(path: Path, top: Path) -> bool:
    """`path` exists, no part of it below the project is a symlink."""
    current = top
    for part in path.relative_to(top).parts:
        current = current / part
        if current.is_symlink():
            return False
    return current.exists()

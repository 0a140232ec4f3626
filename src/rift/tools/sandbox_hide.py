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
`.rift/skills` and `.mcp.json` decide what the next run starts. A missing `.git/hooks/` or
`.rift/` folder is created empty first (git shows no empty folders) so it can be bound;
a project with no `.git` gets an empty read-only one (git looks past an empty `.git` to
the folder above, as before), so `git init` cannot plant a repository whose hooks run
later. A missing `.rift.json` becomes an empty file (read as no settings), bound the same.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from rift.core.permissions.credentials import HOME_STORES

PROJECT_FILES = (".git/config", ".rift.json", ".mcp.json", ".vscode/tasks.json")
"""Files bound read-only where they exist (`.rift.json` is created empty when missing)."""
PROJECT_DIRS = (".git/hooks", ".rift/plugins", ".rift/agents", ".rift/skills")
"""Folders bound read-only, created empty first when missing (`.git/hooks` only in a repo)."""


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
    if not os.path.lexists(git):
        _make(git, folder=True)
    if (top / ".rift.json").is_symlink() is False and not (top / ".rift.json").exists():
        _make(top / ".rift.json", folder=False)
    for rel in PROJECT_DIRS:
        path = top / rel
        if rel.startswith(".git/") and not (git / "HEAD").exists():
            continue
        if not os.path.lexists(path):
            _make(path, folder=True)
    for rel in (".git", *PROJECT_FILES, *PROJECT_DIRS):
        path = top / rel
        if rel == ".git" and (git / "HEAD").exists():
            continue  # a real repository: commits inside still work, config and hooks do not
        if _plain(path, top):
            found.append(str(path))
    return found


def _make(path: Path, *, folder: bool) -> None:
    try:
        if folder:
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch(exist_ok=True)
    except OSError:
        pass  # not ours to create (a read-only checkout): nothing to bind, nothing to plant


def _plain(path: Path, top: Path) -> bool:
    """`path` exists, no part of it below the project is a symlink."""
    current = top
    for part in path.relative_to(top).parts:
        current = current / part
        if current.is_symlink():
            return False
    return current.exists()

"""Which language server rift may start: never one the repository ships.

A language server runs with the user's rights outside any sandbox (unless bwrap is on),
so what it executes must be the user's own install, not the project's (issue 30). A
built-in server whose binary resolves inside the project is not started.
`typescript-language-server` loads the workspace's `tsserver.js` before its own, so rift
hands it the user's own (`initializationOptions.tsserver.path`), or does not start it.
A server command from the user config is the user's choice and is started as written.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

TYPESCRIPT_SERVER = "typescript-language-server"


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(path))


def inside(path: Path, root: Path) -> bool:
    """Whether `path` (resolved) lies in the project `root` (resolved)."""
    real, top = _real(path), _real(root)
    return real == top or top in real.parents


def user_tsserver(server: str, root: Path) -> str | None:
    """The user's own `tsserver.js` outside `root`, or None."""
    candidates: list[Path] = []
    found = shutil.which("tsserver")
    if found is not None:  # npm's bin/tsserver -> ../lib/node_modules/typescript/bin/tsserver
        package = _real(found).parent.parent
        candidates.append(package / "lib" / "tsserver.js")
    located = shutil.which(server)
    if located is not None:
        real = _real(located)
        for parent in real.parents:
            candidates.append(parent / "node_modules" / "typescript" / "lib" / "tsserver.js")
            if parent.name == "node_modules":
                candidates.append(parent / "typescript" / "lib" / "tsserver.js")
                break
    return next((str(_real(c)) for c in candidates if c.is_file() and not inside(c, root)), None)


def startable(argv: tuple[str, ...], root: Path, configured: bool) -> dict[str, Any] | None:
    """The `initializationOptions` to start `argv` with, or None when rift must not start
    it (its binary or the code it would load belongs to the project)."""
    if configured:
        return {}
    located = shutil.which(argv[0])
    if located is None or inside(Path(located), root):
        return None
    if Path(argv[0]).name == TYPESCRIPT_SERVER:
        tsserver = user_tsserver(argv[0], root)
        return None if tsserver is None else {"tsserver": {"path": tsserver}}
    return {}

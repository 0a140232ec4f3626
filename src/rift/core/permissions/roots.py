"""Where write and edit may go without asking: the project and the directories the user added.

The project is the directory rift started in, or its git root (issue 34: `rift -p` wrote
beside the project and reported success); the user adds directories (`--add-dir`,
`/add-dir`, `permissions.additional_directories` in the user config; a project file
cannot add any). A write outside every root is refused without a person and asked with
one, in every mode, unless an allow rule names the path. bash is not bound by this (its
text can be computed); the sandbox is its boundary.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


def project_root(cwd: Path) -> Path:
    """`cwd` resolved, or the nearest folder above it holding `.git` (its repository)."""
    start = Path(os.path.realpath(cwd))
    for folder in (start, *start.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return start


def writable_roots(cwd: Path, added: Iterable[Path] = ()) -> tuple[Path, ...]:
    """The project root and each added directory, resolved, without repeats."""
    roots = [project_root(cwd)]
    roots += [Path(os.path.realpath(cwd / path)) for path in added]
    return tuple(dict.fromkeys(roots))


def inside(real: Path, roots: Iterable[Path]) -> bool:
    """Whether resolved `real` is one of `roots` or below one."""
    return any(real == root or root in real.parents for root in roots)


def outside_message(tool: str, real: Path, roots: tuple[Path, ...]) -> str:
    """The one line the model reads when a write outside the project is refused."""
    where = str(roots[0]) if roots else "the project"
    return (
        f"{tool} refused: outside the project: {real}; write inside it ({where})."
        " Only the user can widen this (--add-dir, or an allow rule naming the path)."
    )

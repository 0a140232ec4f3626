"""Folders whose files rift does not change unless the user's task names them.

Build output, virtualenvs, installed packages, node_modules and git's own
files are copies or machinery: an edit there is lost on the next build or
install, or breaks the repository. A small model that cannot find the file a
task names goes looking and lands there (seen: the embedded model spent
minutes editing `build/lib/rift/frontends/tui/widgets/status.py`, rift's own
build output, because the example's stats.py was missing). write and edit
refuse such a path with a sentence that says where to look instead; a task
that names the folder or the file ("fix build/gen.py") lifts the refusal.

A test file the project's checks judge the change by is held while it judges
(`ToolServices.locked_tests`, set by core/loop/parts/checks.py): a small model whose
fix fails a test rewrites the test (seen: the 1.5B model edited darts_test.py after
"The tests are correct; do not change them"). Which files are held is a fact of the
run, never read from the task's words: a task to write or fix tests changes them
before any check has judged with them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from rift.errors import ToolError

PROTECTED_FOLDERS = (
    "build",
    ".venv",
    "venv",
    "site-packages",
    "dist-packages",
    "node_modules",
    ".git",
    "__pypackages__",
)


def protected_folder(cwd: Path, path: Path) -> str:
    """The protected folder `path` lies under ("" for none), judged relative to the project
    when it is inside it (a project that itself lives under `build/` is not protected)."""
    try:
        parts = path.relative_to(cwd).parts[:-1]
    except ValueError:
        parts = path.parts[:-1]
    return next((part for part in parts if part in PROTECTED_FOLDERS), "")


def named_in(words: str, raw: str, folder: str) -> bool:
    """The task names the file or the folder as a path (`build/gen.py`, `build/`, `.venv`):
    a path is the same in every language, while a bare `build` is an English word (the
    `/init` prompt's "build" lifted the protection)."""
    if raw and raw in words:
        return True
    spelled = folder + "/" if folder.isalpha() else folder
    return re.search(rf"(?<![\w.-]){re.escape(spelled)}(?![\w-])", words) is not None


def refusal(tool: str, raw: str, cwd: Path, path: Path, words: str) -> str | None:
    """Why `tool` may not change `path` (None when it may): the refusal the model reads."""
    folder = protected_folder(cwd, path)
    if not folder or named_in(words, raw, folder):
        return None
    shown = os.path.relpath(path, cwd) if path.is_relative_to(cwd) else str(path)
    return (
        f"{tool} refused: {shown} is under {folder}/, generated or installed files that rift "
        f"does not change unless the task names them (they are rebuilt or reinstalled from the "
        f"project's own source). Change the project's source file instead, outside {folder}/; "
        "if the file the task names does not exist, say so in your final answer."
    )


def refusal_of_tests(tool: str, cwd: Path, path: Path, locked: frozenset[Path]) -> str | None:
    """Why `tool` may not change the test file `path` (None when it may): the checks judge
    by it (`locked`: resolved paths)."""
    if path.resolve() not in locked:
        return None
    shown = os.path.relpath(path, cwd) if path.is_relative_to(cwd) else str(path)
    return (
        f"{tool} refused: {shown} holds the tests rift checks this change with; make the "
        "code under test pass them instead. If a test itself is wrong, say so in your final "
        "answer."
    )


def require_changeable(
    tool: str, raw: str, cwd: Path, path: Path, words: str, locked: frozenset[Path] = frozenset()
) -> None:
    """Raise the refusal as a ToolError (the turn shows it to the model as an ERROR result)."""
    refused = refusal(tool, raw, cwd, path, words) or refusal_of_tests(tool, cwd, path, locked)
    if refused is not None:
        raise ToolError(refused)

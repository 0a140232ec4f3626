"""Folders whose files rift does not change unless the user's task names them.

Build output, virtualenvs, installed packages, node_modules and git's own
files are copies or machinery: an edit there is lost on the next build or
install, or breaks the repository, yet a small model that cannot find the file a
task names goes looking and lands there. write and edit refuse such a path with a
sentence that says where to look instead; a task that names the folder or the
file ("fix build/gen.py") lifts the refusal.

A test file the project's checks judge the change by is held while it judges
(`ToolServices.locked_tests`, set by core/loop/parts/checks.py): a small model whose
fix fails a test rewrites the test. Which files are held is a fact of the run, never
read from the task's words: a task to write or fix tests changes them before any
check has judged with them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from rift.errors import ToolError
from rift.text.patterns import lazy

PROTECTED_FOLDERS = (
    "build",
    ".venv",
    "venv",
    "site-packages",
    "dist-packages",
    "node_modules",
    "__pypackages__",
)

RUNS_LATER = {
    (".rift.json",): "rift's project config (its hooks run after every edit)",
    (".mcp.json",): "the MCP servers the next run starts",
    (".vscode", "tasks.json"): "editor tasks (run by the editor)",
    (".rift", "plugins"): "a rift plugin (run by the next session)",
}
"""Trailing path parts of files that run code later, outside this turn's checks."""
GIT_DRIVER = lazy(r"(?<![\w-])(filter|diff|merge)=\S")
"""A `.gitattributes` entry naming a driver: git runs the command the config gives it."""


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


def _named(words: str, name: str) -> bool:
    """`name` (a path) in the task's own words, not only in test output pasted into it (a
    pytest node id `x_test.py::t`, a traceback's `x_test.py:25` or `"…/x_test.py", line 25`)."""
    pattern = rf"(?<![\w.-]){re.escape(name)}(?!::|:\d|[\"'\w])"
    return re.search(pattern, words) is not None


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


def judged_name(raw: str, cwd: Path, path: Path) -> str:
    """The name the task must use to lift a refusal: `raw` when it is the file itself, else
    the resolved file's own path. A symlink named like the task's words (`helper.py` ->
    `darts_test.py`) is judged by what it points to, never by its own name."""
    home = Path(os.path.realpath(cwd))
    if Path(os.path.abspath(home / raw)) == path:
        return raw
    return os.path.relpath(path, home) if path.is_relative_to(home) else str(path)


def runs_later(cwd: Path, path: Path, content: str) -> str:
    """What `path` is when writing `content` there plants code that runs later ("" for an
    ordinary file): git's own files (a `.git` file or folder anywhere, `.git/hooks/*`,
    `.git/config`), a `.gitattributes` naming a filter, diff or merge driver, and the
    config files of RUNS_LATER. Seen: with bash denied, write alone made a `.git` file
    pointing at a planted gitdir and a `* filter=x` whose command rift's own `git add` ran."""
    home = Path(os.path.realpath(cwd))
    parts = path.relative_to(home).parts if path.is_relative_to(home) else path.parts
    if ".git" in parts:
        return "git's own files (.git: config, hooks and gitdir links run commands)"
    if parts and parts[-1] == ".gitattributes" and GIT_DRIVER().search(content):
        return "a .gitattributes entry naming a filter, diff or merge driver (git runs it)"
    for tail, what in RUNS_LATER.items():
        for start in range(len(parts) - len(tail) + 1):
            if parts[start : start + len(tail)] == tail:
                return what
    return ""


def require_named_if_runs_later(
    tool: str, raw: str, cwd: Path, path: Path, content: str, words: str
) -> str:
    """The `runs_later` description the gate must ask about ("" for an ordinary file);
    raises the refusal when the task does not name the file by its path. Naming is a
    path match (the project-relative path or the path the model gave), never a word."""
    what = runs_later(cwd, path, content)
    if not what:
        return ""
    home = Path(os.path.realpath(cwd))
    rel = os.path.relpath(path, home) if path.is_relative_to(home) else str(path)
    if any(_named(words, name) for name in {judged_name(raw, cwd, path), rel} if name):
        return what
    raise ToolError(
        f"{tool} refused: {rel} is {what}. rift does not write such files unless the task "
        "names the file by its path, and then asks the person first. Change the project's "
        "source instead; if the task needs this file changed, say so in your final answer."
    )


def require_changeable(
    tool: str, raw: str, cwd: Path, path: Path, words: str, locked: frozenset[Path] = frozenset()
) -> None:
    """Raise the refusal as a ToolError (the turn shows it to the model as an ERROR result)."""
    raw = judged_name(raw, cwd, path)
    refused = refusal(tool, raw, cwd, path, words) or refusal_of_tests(tool, cwd, path, locked)
    if refused is not None:
        raise ToolError(refused)

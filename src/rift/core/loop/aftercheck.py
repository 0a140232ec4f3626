"""The check after a turn's edits, fed back to the model once (aider's lint and test loop).

A small model stops as soon as one edit succeeds: a renamed `def` with its call
left behind, a "fix" whose test still fails. Before a turn that changed files
may end, rift checks what the project itself offers, once:
- every changed Python file still defines each name it uses that it defined
  before (tools/leftovers.py; the parse check already ran in the guards);
- what the task's words name is done: a rename's new name in and old name out,
  an added function defined, a change that is more than layout (taskcheck.py);
- the test file the task names, or the `test_<module>.py` beside a changed
  module (in its folder or `tests/`), run with `python3 -m pytest -x -q`
  through the real bash tool, so the permission gate, sandbox and events apply.
A failure goes back to the model as one `[system]` message and the turn goes on;
a second failure does not loop.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from rift.core.loop import taskcheck
from rift.core.sessions.checkpoints import UndoJournal
from rift.patterns import lazy
from rift.tools import leftovers

_TEST_FILE = lazy(r"(?<![\w./-])([\w./-]*test[\w.-]*\.py)\b")
FAILED_TESTS = (
    "[system] The check after your change failed (its output is above). Fix the code the task "
    "is about so that it passes; do not change the test."
)


def _shown(path: Path, cwd: Path) -> str:
    return os.path.relpath(path, cwd) if path.is_relative_to(cwd) else str(path)


def changed_files(journal: object) -> dict[Path, bytes | None]:
    """The files this turn changed, with their bytes before it (None: created)."""
    return journal.current() if isinstance(journal, UndoJournal) else {}


def leftover_problems(journal: object, cwd: Path) -> str:
    """The `[system]` message naming what the turn's Python edits left undone ("" if nothing)."""
    notes: list[str] = []
    for path, prior in changed_files(journal).items():
        if path.suffix not in (".py", ".pyi"):
            continue
        try:
            now = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        before = None if prior is None else prior.decode("utf-8", errors="replace")
        note = leftovers.leftover_note(_shown(path, cwd), before, now)
        if note:
            notes.append(note.strip())
    return "[system] " + " ".join(notes) if notes else ""


def unfinished_task(words: str, journal: object, cwd: Path) -> str:
    """The `[system]` message naming what the task's own words ask that the turn's change
    has not done (core/loop/taskcheck.py; "" when nothing)."""
    changed = changed_files(journal)
    return taskcheck.task_problems(words, changed, {p: _shown(p, cwd) for p in changed})


def test_file(words: str, changed: list[Path], cwd: Path) -> str:
    """The test file to run: one the task names, else one beside a changed module ("")."""
    for match in _TEST_FILE().finditer(words):
        name = match.group(1).rstrip(".")
        if (cwd / name).is_file():
            return name
    for path in changed:
        if path.suffix != ".py" or path.stem.startswith("test_"):
            continue
        for folder in (path.parent, cwd / "tests", cwd / "test"):
            candidate = folder / f"test_{path.stem}.py"
            if candidate.is_file() and candidate.resolve().is_relative_to(cwd.resolve()):
                return _shown(candidate, cwd)
    return ""


def has_pytest(cwd: Path) -> bool:
    """The project's `python3` can import pytest (a test run would otherwise fail for no
    fault of the model's)."""
    try:
        probe = subprocess.run(
            ["python3", "-c", "import pytest"], cwd=cwd, capture_output=True, timeout=20
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def test_command(words: str, journal: object, cwd: Path) -> str:
    """The bash command that checks this turn's change ("" when the project offers none)."""
    name = test_file(words, list(changed_files(journal)), cwd)
    if not name or not has_pytest(cwd):
        return ""
    return f"python3 -m pytest -x -q {name}"

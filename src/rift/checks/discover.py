"""Find the command that tests a project, or the part of it a change touched.

A judge that knows one naming convention judges nothing elsewhere, so `<module>_test.py`,
`test_<module>.py` and a `tests/` folder all count; a manifest that names a command
wins where it is explicit. For Python the narrowest command is preferred (the test files
of the changed modules), so a 2-second check does not become the whole suite's minutes.
Nothing here reads the user's words: the files and the manifests decide.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterable
from functools import cache
from pathlib import Path

NPM_PLACEHOLDER = "no test specified"
PY_CONFIGS = ("pytest.ini", "conftest.py", "tox.ini")
PYTEST_FLAGS = "-q -rfE --tb=short --no-header -p no:cacheprovider"
"""Quiet, a one-line-per-failure summary (`-rfE`) that results.py reads, short tracebacks."""
TEST_FOLDERS = ("tests", "test")


def is_test_file(path: Path) -> bool:
    """A Python test module by the conventions pytest and unittest projects use."""
    name = path.name
    return path.suffix == ".py" and (
        name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
    )


def tests_for(module: Path, root: Path) -> list[Path]:
    """The test files that belong to `module`: `test_<stem>.py` or `<stem>_test.py` beside it
    or in the project's `tests/`/`test/` folder; a test file is its own test."""
    if module.suffix != ".py":
        return []
    if is_test_file(module):
        return [module] if module.name != "conftest.py" else []
    folders = dict.fromkeys([module.parent, *(root / name for name in TEST_FOLDERS)])
    names = (f"test_{module.stem}.py", f"{module.stem}_test.py")
    return [
        folder / name for folder in folders for name in names if _inside_file(folder / name, root)
    ]


def _inside_file(path: Path, root: Path) -> bool:
    """A regular file (not a link) inside `root`: a link named like a test could point anywhere."""
    try:
        return (
            not path.is_symlink()
            and path.is_file()
            and path.resolve().is_relative_to(root.resolve())
        )
    except OSError:
        return False


def python_configured(root: Path) -> bool:
    """The project says it is tested with pytest (a config file or a settings section)."""
    if any((root / name).is_file() for name in PY_CONFIGS):
        return True
    for name, marker in (("pyproject.toml", "[tool.pytest"), ("setup.cfg", "[tool:pytest]")):
        try:
            if marker in (root / name).read_text(encoding="utf-8", errors="replace"):
                return True
        except OSError:
            continue
    return False


def has_python_tests(root: Path) -> bool:
    """test_*.py or *_test.py at the top, or in a top-level tests/ or test/ folder."""
    for folder in (root, *(root / name for name in TEST_FOLDERS)):
        try:
            if any(is_test_file(p) and p.name != "conftest.py" for p in folder.iterdir()):
                return True
        except OSError:
            continue
    return False


def npm_test(package: Path) -> bool:
    """`package.json` names a real `scripts.test` (not npm init's placeholder)."""
    try:
        data = json.loads(package.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    scripts = data.get("scripts") if isinstance(data, dict) else None
    test = scripts.get("test") if isinstance(scripts, dict) else None
    return isinstance(test, str) and NPM_PLACEHOLDER not in test


def python_for(root: Path) -> str:
    """The interpreter that has the project's test runner: its own `.venv`/`venv` first."""
    for venv in (".venv", "venv"):
        python = root / venv / "bin" / "python"
        if python.is_file():
            return str(python)
    return "python3"


@cache
def has_pytest(python: str, root: Path) -> bool:
    """`python` can import pytest (else a plain unittest run judges: Exercism's and many
    projects' tests are unittest classes, which both runners run)."""
    import subprocess  # on first use: a turn that changes nothing never probes

    try:
        probe = subprocess.run(
            [python, "-c", "import pytest"], cwd=root, capture_output=True, timeout=20
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def pytest_command(root: Path, files: Iterable[Path] = ()) -> str:
    """`python -m pytest` with the flags results.py reads, over `files` (all when empty);
    `python -m unittest` over them when pytest is not installed there."""
    python = python_for(root)
    names = [shlex.quote(os.path.relpath(f, root)) for f in files]
    if not has_pytest(python, root):
        return " ".join([python, "-m", "unittest", *(names or ["discover"])])
    return " ".join([python, "-m", "pytest", PYTEST_FLAGS, *names])


def project_command(root: Path) -> str | None:
    """The whole project's test command, or None when nothing says how it is tested."""
    import shutil  # on first use (tests/test_startup_imports.py: FIRST_USE)

    if python_configured(root):
        return pytest_command(root)
    if (root / "Cargo.toml").is_file() and shutil.which("cargo"):
        return "cargo test"
    if (root / "go.mod").is_file() and shutil.which("go"):
        return "go test ./..."
    if npm_test(root / "package.json") and shutil.which("npm"):
        return "npm test"
    if has_python_tests(root):
        return pytest_command(root)
    return None


def command_for(changed: Iterable[Path], root: Path) -> str | None:
    """The command that judges a change to `changed`: the Python test files that belong to
    the changed modules when there are any, else the project's own command."""
    tests = list(dict.fromkeys(test for path in changed for test in tests_for(path, root)))
    if tests:
        return pytest_command(root, tests)
    return project_command(root)


def judged_files(command: str, root: Path) -> list[Path]:
    """The test files a command from `command_for` names (resolved), for the test-file lock."""
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    paths = [(root / word).resolve() for word in words if word.endswith(".py")]
    return [path for path in paths if path.is_file() and is_test_file(path)]

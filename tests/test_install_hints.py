"""Item 4 of issue 22: the default install runs the default face, and every install hint
names a command that works from a clone (the PyPI name `rift` is another project's)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPI_RIFT = re.compile(r"pip install '?rift\[")


def hidden(module: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """rift as a machine without `module` sees it (find_spec and import answer None)."""
    code = f"import sys; sys.modules[{module!r}] = None; from rift.cli import main; "
    code += f"sys.exit(main({args!r}))"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
    )


def test_the_default_install_brings_the_tui() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert any(dep.startswith("textual") for dep in project["dependencies"])


def test_no_source_file_names_the_unrelated_pypi_rift() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "src" / "rift").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if PYPI_RIFT.search(line)
    ]
    assert not offenders


@pytest.mark.parametrize(
    ("module", "args", "extra"),
    [("textual", [], "[tui]"), ("acp", ["--acp"], "[acp]")],
    ids=["tui", "acp"],
)
def test_a_missing_optional_package_names_a_working_command(
    module: str, args: list[str], extra: str, tmp_path: Path
) -> None:
    run = hidden(module, args, tmp_path)
    assert run.returncode == 2, run.stderr
    assert " -m pip install " in run.stderr and extra in run.stderr
    assert not PYPI_RIFT.search(run.stderr)
    assert "Traceback" not in run.stderr

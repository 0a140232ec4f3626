"""Helpers for tests that run the real `rift` (import from here, never from conftest).

`RIFT_BIN`, when set, names another rift build to test instead of this one.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

RIFT_CMD = [sys.executable, "-m", "rift"]


def rift_command() -> list[str]:
    """The rift under test as an argv prefix."""
    custom = os.environ.get("RIFT_BIN")
    return shlex.split(custom) if custom else list(RIFT_CMD)


def run_rift(
    args: list[str], cwd: Path, *, timeout: float = 60, input_text: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real rift CLI as a subprocess in `cwd` with the test's environment."""
    return subprocess.run(
        [*rift_command(), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        input=input_text,
        env=dict(os.environ),
    )


def sessions_dir() -> Path:
    return Path(os.environ["XDG_DATA_HOME"]) / "rift" / "sessions"


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")

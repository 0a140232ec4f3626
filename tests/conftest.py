"""Shared fixtures: an isolated HOME/XDG per test and helpers to run the real `rift`.

Every test gets its own home, config, data and cache directories, and the
RIFT_* variables of the developer's shell are removed, so no test reads or
writes the person's real config or sessions.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rift_bin import rift_command


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    home = tmp_path / "home"
    for sub in ("", ".config", ".local/share", ".cache"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    for key in list(os.environ):
        if key.startswith("RIFT_") and key != "RIFT_BIN":
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local/share"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    return dict(os.environ)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory to run rift in."""
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def fake_server() -> Iterator[Any]:
    """Factory: fake_server(script_dict) → a started FakeModelServer, stopped after the test."""
    from rift.testing.fake_server import FakeModelServer

    servers: list[Any] = []

    def start(script: dict[str, Any]) -> Any:
        server = FakeModelServer(script)
        server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


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

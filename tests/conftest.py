"""Shared fixtures: an isolated HOME/XDG per test and helpers to run the real `rift`.

Every test gets its own home, config, data and cache directories, and the
RIFT_* variables of the developer's shell are removed, so no test reads or
writes the person's real config or sessions.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rift_bin import rift_command, run_rift, sessions_dir, write_json

__all__ = ["rift_command", "run_rift", "sessions_dir", "write_json"]


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
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local/state"))
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
    from fakes.fake_server import FakeModelServer

    servers: list[Any] = []

    def start(script: dict[str, Any]) -> Any:
        server = FakeModelServer(script)
        server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()

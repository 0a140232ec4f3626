"""Fixtures for the extension tests: skills, plugins, personas, hooks, MCP servers and trust.

Everything runs for real: manifests and configs are files in the test's temp
dirs, plugin tools and hooks are subprocesses, and rift itself is the
`rift --serve` / `rift -p` CLI against the scripted fake model server.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # serve_driver, rift_bin

from extend_helpers import MODEL
from rift_bin import rift_command
from serve_driver import ServeProcess


@pytest.fixture
def start_serve(project: Path) -> Iterator[Callable[..., ServeProcess]]:
    """Factory: start_serve(server, *flags) → a ServeProcess whose `ready` has arrived."""
    procs: list[ServeProcess] = []

    def start(server: Any, *flags: str) -> ServeProcess:
        proc = ServeProcess(project, "--host", server.url, "-m", MODEL, *flags)
        procs.append(proc)
        proc.until("ready")
        return proc

    yield start
    for proc in procs:
        if proc.proc.poll() is None:
            proc.proc.kill()
        proc.proc.wait(timeout=10)


@pytest.fixture
def harness_run(project: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Factory: harness_run(server, prompt) → the finished `rift -p PROMPT` in the project."""

    def run(server: Any, prompt: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*rift_command(), "-p", prompt, "--host", server.url, "-m", MODEL],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=90,
            stdin=subprocess.DEVNULL,
            env=dict(os.environ),
        )

    return run

"""Fixtures for the tool tests: a project directory and a ToolContext over gate/journal doubles."""

from __future__ import annotations

from pathlib import Path

import pytest
from tooldoubles import RecordingGate, RecordingJournal

from rift.tools.base import ToolContext


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


@pytest.fixture
def gate() -> RecordingGate:
    return RecordingGate()


@pytest.fixture
def journal() -> RecordingJournal:
    return RecordingJournal()


@pytest.fixture
def ctx(proj: Path, gate: RecordingGate, journal: RecordingJournal) -> ToolContext:
    return ToolContext(cwd=proj, gate=gate, journal=journal)

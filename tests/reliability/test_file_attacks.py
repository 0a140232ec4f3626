"""The undo-paths, races and writes-outside families (bench/reliability_checks/file_attacks.py)
at full size: every case refused, each a real `rift` run against a hostile project."""

from __future__ import annotations

import pytest
from reliability_checks.file_attacks import (
    race_attacks,
    undo_path_attacks,
    writes_outside_attacks,
)

pytestmark = pytest.mark.reliability


def _failed(cases: dict[str, bool]) -> list[str]:
    return [case for case, refused in cases.items() if not refused]


def test_undo_paths_family() -> None:
    cases = undo_path_attacks()
    assert len(cases) == 6 and not _failed(cases), _failed(cases)


def test_races_family() -> None:
    cases = race_attacks()
    assert len(cases) == 5 and not _failed(cases), _failed(cases)


def test_writes_outside_family() -> None:
    cases = writes_outside_attacks()
    assert len(cases) == 4 and not _failed(cases), _failed(cases)

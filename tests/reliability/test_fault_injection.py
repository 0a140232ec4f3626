"""Fault injection: every way the fake model server can fail, in both wire formats; each
turn ends with one `done` in bounded time, the session stays valid, the next prompt works."""

from __future__ import annotations

import pytest
from reliability_checks.faults import run_faults

pytestmark = pytest.mark.reliability


def test_every_fault_ends_the_turn_and_rift_recovers() -> None:
    report = run_faults()
    assert report.ok, report.describe()

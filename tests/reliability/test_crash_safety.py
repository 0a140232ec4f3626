"""Crash safety at CI size: ten `kill -9`s at random moments of turns, saves, "always
allow" answers and trust answers; nothing rift owns is ever half-written or loses a turn."""

from __future__ import annotations

import pytest
from reliability_checks.crash import run_crash

pytestmark = pytest.mark.reliability


def test_kill_9_never_corrupts_or_loses_a_completed_turn() -> None:
    report = run_crash(10, seed=7)
    assert report.ok, report.describe()
    figures = {f.name: f.value for f in report.figures}
    assert figures["turns completed before a kill (done seen)"] > 0

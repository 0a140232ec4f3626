"""The bubblewrap sandbox for bash: outside writes and the network refused, the project
writable, and a clear warning plus the documented fallback where bwrap cannot run."""

from __future__ import annotations

import pytest
from reliability_checks.common import Report
from reliability_checks.sandbox_check import fallback_checks, probe, run_confinement

pytestmark = pytest.mark.reliability


def test_sandbox_confines_bash() -> None:
    reason = probe()
    if reason is not None:
        pytest.skip(reason)
    report = Report("sandbox confinement")
    run_confinement(report)
    assert report.ok, report.describe()


def test_unusable_sandbox_warns_once_and_falls_back() -> None:
    report = Report("sandbox fallback")
    fallback_checks(report)
    assert report.ok, report.describe()

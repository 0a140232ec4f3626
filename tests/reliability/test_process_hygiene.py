"""Process hygiene: cancel, stdin EOF and SIGTERM (mid-bash and with background tasks)
leave no process behind, and rift exits cleanly."""

from __future__ import annotations

import pytest
from reliability_checks.hygiene import run_hygiene

pytestmark = pytest.mark.reliability


def test_no_process_outlives_its_turn_or_rift() -> None:
    report = run_hygiene()
    assert report.ok, report.describe()

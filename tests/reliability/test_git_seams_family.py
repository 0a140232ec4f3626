"""The git-seams family of `bench/reliability.py` (bench/reliability_checks/git_seams.py):
registered, one case per mechanism, every case refused."""

from __future__ import annotations

import pytest
from reliability_checks.attacks import SCENARIOS
from reliability_checks.git_seams import CASES, git_seam_attacks

pytestmark = pytest.mark.reliability


def test_git_seams_is_a_registered_family_and_refuses_every_mechanism() -> None:
    assert [s for s, _ in SCENARIOS["git-seams"]] == [git_seam_attacks]
    outcome = git_seam_attacks()
    assert set(outcome) == set(CASES)
    assert all(outcome.values()), [case for case, ok in outcome.items() if not ok]

"""bench/reliability_checks/net_seams.py's families (issue 42): each public attack
mechanism on rift's network seams is staged for real and refused."""

from __future__ import annotations

import pytest
from reliability_checks import net_seams
from reliability_checks.attacks import SCENARIOS

pytestmark = [pytest.mark.reliability, pytest.mark.timeout(300)]


def test_the_net_seam_families_are_registered() -> None:
    assert {"ci-comment-injection", "unbounded-body", "server-text-to-terminal"} <= set(SCENARIOS)


@pytest.mark.parametrize(
    "scenario", [net_seams.ci_comment_injection, net_seams.unbounded_body, net_seams.doctor_seams]
)
def test_every_net_seam_attack_is_refused(scenario: object) -> None:
    assert callable(scenario)
    outcome = scenario()
    assert outcome and all(outcome.values()), outcome

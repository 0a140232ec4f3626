"""bench/reliability_checks/public_mechanisms.py's families (issue 42): each public attack
mechanism against coding agents not staged elsewhere is staged for real and refused."""

from __future__ import annotations

import pytest
from reliability_checks import public_mechanisms
from reliability_checks.attacks import SCENARIOS

pytestmark = [pytest.mark.reliability, pytest.mark.timeout(300)]

FAMILIES = {
    "hooks-before-trust",
    "command-rule-prefix-bypass",
    "unauthenticated-local-server",
    "injected-exfiltration",
}


def test_the_public_mechanism_families_are_registered() -> None:
    assert set(SCENARIOS) >= FAMILIES


@pytest.mark.parametrize(
    "scenario",
    [
        public_mechanisms.hooks_before_trust,
        public_mechanisms.prefix_bypass,
        public_mechanisms.colon_prefix_rule,
        public_mechanisms.local_server_sockets,
        public_mechanisms.injected_exfiltration,
    ],
)
def test_every_public_mechanism_attack_is_refused(scenario: object) -> None:
    assert callable(scenario)
    outcome = scenario()
    through = [case for case, refused in outcome.items() if not refused]
    assert outcome and not through, through

"""Item 10 of the security issue: `&`, `nohup` and `setsid` children die with rift.

Real `rift -p` and `rift --serve` runs against the fake server
(bench/reliability_checks/process_escape.py): after `-p` exits, after `cancel`
(before stdin closes) and after stdin EOF, no process from the run is alive.
"""

from __future__ import annotations

import sys

import pytest
from reliability_checks.process_escape import headless_exit, serve_cancel, serve_eof

pytestmark = [
    pytest.mark.reliability,
    pytest.mark.skipif(sys.platform != "linux", reason="process reaping is Linux-only"),
]


@pytest.mark.parametrize("scenario", [headless_exit, serve_cancel, serve_eof])
def test_no_escaped_child_survives(scenario: object) -> None:
    assert callable(scenario)
    survived = scenario()
    assert not any(survived.values()), f"survived: {[k for k, v in survived.items() if v]}"

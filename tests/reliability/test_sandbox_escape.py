"""Item 5 of the security issue: nothing rift runs itself is a way out of the sandbox.

Real `rift -p` runs (bench/reliability_checks/sandbox_escape.py): with the sandbox on,
post-edit hooks and plugin tools run inside it and write/edit stay inside the
project and the temp dir; rift's own config and trust stores are never written by
write/edit, nor (sandbox on) by bash; and rift's git calls in a hostile repository
run none of its configured commands.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable

import pytest
from reliability_checks.sandbox_check import probe
from reliability_checks.sandbox_escape import (
    bash_config_attacks,
    config_write_attacks,
    git_attacks,
    sandboxed_run_attacks,
)

pytestmark = pytest.mark.reliability


def _assert_all_refused(outcome: dict[str, bool]) -> None:
    through = [case for case, refused in outcome.items() if not refused]
    assert not through, f"got through: {through}"


@pytest.mark.parametrize("scenario", [sandboxed_run_attacks, bash_config_attacks])
def test_sandboxed_escapes_are_refused(scenario: Callable[[], dict[str, bool]]) -> None:
    reason = probe()
    if reason is not None:
        pytest.skip(reason)
    _assert_all_refused(scenario())


def test_rifts_own_config_is_never_written_by_tools() -> None:
    _assert_all_refused(config_write_attacks())


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_rifts_git_calls_run_nothing_the_repository_configured() -> None:
    _assert_all_refused(git_attacks())

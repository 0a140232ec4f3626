"""Item 3 of the security issue: the bwrap sandbox holds for root too.

Root keeps CAP_SYS_ADMIN inside a plain bwrap, so `mount -o remount,rw /` undid the
read-only bind and the next write landed on the host. The sandbox now runs the
command in its own user namespace (mapped to the caller) with every capability
dropped. Checked end to end through `rift -p` as whoever runs the tests, and with
the sandbox's own argv as an unprivileged user (created with useradd when the
tests run as root; the part that needs the other identity is skipped, naming it,
when that is not possible).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from reliability_checks.sandbox_attacks import (
    remount_attack_as,
    remount_attack_through_rift,
    unprivileged_user,
)
from reliability_checks.sandbox_check import probe

from rift.tools.sandbox import choose_sandbox

pytestmark = pytest.mark.reliability


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory under /var/tmp (not hidden by the sandbox's private /tmp)."""
    try:
        path = Path(tempfile.mkdtemp(prefix="rift-root-", dir="/var/tmp"))
    except OSError:
        pytest.skip("/var/tmp is not writable here")
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _require_bwrap() -> None:
    reason = probe()
    if reason is not None:
        pytest.skip(reason)


def test_remount_as_the_caller_does_not_write_to_the_host(outside: Path) -> None:
    _require_bwrap()
    landed, ran_inside = remount_attack_through_rift(outside)
    assert ran_inside, "the sandboxed run did not get as far as writing inside the project"
    assert not landed, f"the sandboxed command wrote {outside}/X as uid {os.getuid()}"


def test_remount_as_an_unprivileged_user_does_not_write_to_the_host(outside: Path) -> None:
    _require_bwrap()
    user = unprivileged_user()
    if user is None:
        pytest.skip("no unprivileged user to test as (not root, so useradd is not possible)")
    outcome = remount_attack_as(user, outside)
    assert outcome is not None, f"bwrap refused to start for {user}"
    landed, inside = outcome
    assert inside, f"the sandboxed command could not write inside the project as {user}"
    assert not landed, f"the sandboxed command wrote {outside}/X as {user}"


def test_root_still_writes_a_project_it_does_not_own(outside: Path) -> None:
    """A container's root in a checkout owned by the host user: dropping capabilities
    must not make the project read-only."""
    _require_bwrap()
    if os.geteuid() != 0:
        pytest.skip("not running as root")
    user = unprivileged_user()
    if user is None:
        pytest.skip("no other user to own the project (useradd failed)")
    project = outside / "theirs"
    project.mkdir()
    shutil.chown(project, user, user)
    box, problem = choose_sandbox("bwrap", network=False, project=project, has_wrapper=False)
    assert box is not None, problem
    done = subprocess.run(
        [*box.argv(box.project), "sh", "-c", "echo ok > written"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (project / "written").exists(), done.stderr

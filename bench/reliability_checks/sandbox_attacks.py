"""Attacks on the bubblewrap sandbox itself (family "sandbox-root").

A sandboxed command that remounts / read-write and then writes outside the
project: with plain bwrap as root this landed on the host. Run through `rift -p`
as whoever runs the check, and with the sandbox's argv as an unprivileged user
(created with `useradd` when running as root).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from pathlib import Path

from .common import MODEL, fake_server, rift_argv, sandbox

REMOUNT_ATTACK = (
    "echo in > inside; mount -o remount,rw / 2>/dev/null;"
    " mount -o remount,rw /var/tmp 2>/dev/null; touch {outside}/X"
)
TEST_USER = "riftsandbox"


def remount_attack_through_rift(outside: Path) -> tuple[bool, bool]:
    """(the outside file landed, the in-project write landed) after one sandboxed run."""
    command = REMOUNT_ATTACK.format(outside=outside)
    call = {"id": "m", "name": "bash", "arguments": {"command": command, "timeout_secs": 60}}
    script = {"turns": [{"tool_calls": [call]}, {"content": "done"}]}
    with sandbox() as box, fake_server(script) as server:
        box.write_user_config({"permissions": {"sandbox": "bwrap"}})
        subprocess.run(
            [*rift_argv(), "-p", "go", "--host", server.url, "-m", MODEL],
            cwd=box.project,
            env=box.env(),
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        inside = (box.project / "inside").exists()
    return (outside / "X").exists(), inside


def unprivileged_user() -> str | None:
    """A user other than root to run as: this one when not root, else TEST_USER (added
    with useradd when missing); None when neither is possible."""
    if os.getuid() != 0:
        return pwd.getpwuid(os.getuid()).pw_name
    try:
        pwd.getpwnam(TEST_USER)
        return TEST_USER
    except KeyError:
        pass
    useradd = shutil.which("useradd")
    if useradd is None:
        return None
    done = subprocess.run(
        [useradd, "--no-create-home", "--shell", "/usr/sbin/nologin", TEST_USER],
        capture_output=True,
        check=False,
    )
    return TEST_USER if done.returncode == 0 else None


def remount_attack_as(user: str, outside: Path) -> tuple[bool, bool] | None:
    """(the outside file landed, the in-project write landed) when `user` runs the attack
    in the sandbox's own argv (no Python needed on their side); None when rift's probe
    refuses bwrap here. `outside` must be world-writable."""
    from msgspec.structs import replace

    from rift.tools.sandbox import choose_sandbox

    entry = pwd.getpwnam(user)
    project = outside / "project"  # not under a root-only temp dir: the user must reach it
    project.mkdir()
    os.chown(project, entry.pw_uid, entry.pw_gid)
    # the argv that user's rift builds: their home's stores hidden, not the caller's (a
    # root-only /root/.npmrc as a mount point makes bwrap fail for anyone else)
    home = Path(entry.pw_dir)
    box, _ = choose_sandbox("bwrap", network=False, project=project, has_wrapper=False, home=home)
    if box is None:
        return None
    box = replace(box, root=entry.pw_uid == 0)
    subprocess.run(
        [*box.argv(box.project), "sh", "-c", REMOUNT_ATTACK.format(outside=outside)],
        user=entry.pw_uid,
        group=entry.pw_gid,
        extra_groups=[],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": entry.pw_dir},
        capture_output=True,
        timeout=60,
        check=False,
    )
    return (outside / "X").exists(), (project / "inside").exists()

"""The bubblewrap sandbox for bash (`permissions.sandbox: "bwrap"`), end to end.

`rift -p` against the fake server runs the same bash commands with and without
the sandbox: a write outside the project (to a directory under /var/tmp, which
the sandbox mounts read-only, and to a sibling of the project under /tmp,
which it hides behind a private tmpfs), a write inside the project, a
connection to the fake server (the network is cut unless `sandbox_network`),
and a `setsid` sleeper that escapes the process group. Without the sandbox the
outside writes land (the sleeper still dies when rift exits: tools/_descendants.py);
with it neither happens, while the project write still lands. A fake `bwrap` that cannot create
namespaces, and an unknown sandbox name, must each produce one startup warning
and a run that still works (the documented fallback).

Skipped, with the reason, where bubblewrap is missing or cannot create
namespaces (containers without user namespaces).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

from .common import (
    MODEL,
    Report,
    Sandbox,
    fake_server,
    rift_argv,
    sandbox,
)
from .hygiene import sigkill_serve
from .procs import kill_pids, live_pids_with, wait_until

SKIP_REASON = "bubblewrap (bwrap) cannot create namespaces here"


def probe() -> str | None:
    """None when rift's own probe accepts bwrap here, else the reason to skip."""
    from rift.tools.sandbox import choose_sandbox

    sandbox_, problem = choose_sandbox(
        "bwrap", network=False, project=Path(tempfile.gettempdir()), has_wrapper=False
    )
    return None if sandbox_ is not None else f"{SKIP_REASON}: {problem}"


def _commands(outside: Path, sibling: Path, url: str, sleeper: str) -> list[tuple[str, str]]:
    # The base interpreter, not the venv's symlink: a checkout under /tmp (CI clones
    # there) is hidden inside the sandbox, whose /tmp is a private tmpfs.
    python = os.path.realpath(sys.executable)
    fetch = (
        f'{shlex.quote(python)} -c "import urllib.request,sys;'
        f" urllib.request.urlopen('{url}/api/tags', timeout=30);"
        " open('net-ok', 'w').close()\""
    )
    return [
        ("outside-var-tmp", f"echo escaped > {outside}/escaped.txt"),
        ("outside-tmp-sibling", f"echo escaped > {sibling}/escaped.txt"),
        ("inside-project", "echo fine > inside.txt"),
        ("network", fetch),
        ("setsid-escape", f"setsid sleep {sleeper} > /dev/null 2>&1 < /dev/null & echo started"),
    ]


def _run(box: Sandbox, commands: list[tuple[str, str]]) -> tuple[int, str]:
    calls = [
        {"id": name, "name": "bash", "arguments": {"command": cmd, "timeout_secs": 90}}
        for name, cmd in commands
    ]
    script = {"turns": [{"tool_calls": calls}, {"content": "done"}]}
    with fake_server(script) as server:
        proc = subprocess.run(
            [*rift_argv(), "-p", "go", "--host", server.url, "-m", MODEL],
            cwd=box.project,
            env=box.env(),
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
    return proc.returncode, proc.stderr


def _scenario(config: dict[str, Any], extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    """One `rift -p` run of every probe command; what got through."""
    try:  # outside /tmp, which the sandbox replaces with its own tmpfs
        outside = Path(tempfile.mkdtemp(prefix="rift-sbx-", dir="/var/tmp"))
    except OSError:
        outside = Path(tempfile.mkdtemp(prefix="rift-sbx-"))
    sleeper = f"311.{uuid.uuid4().int % 10**12:012d}"
    try:
        with sandbox(**(extra_env or {})) as box, fake_server({}) as target:
            sibling = box.root / "sibling"
            sibling.mkdir()
            box.write_user_config(config)
            commands = _commands(outside, sibling, target.url, sleeper)
            code, stderr = _run(box, commands)
            escaped = wait_until(lambda: live_pids_with(sleeper), 1.0)
            result = {
                "exit": code,
                "stderr": stderr,
                "outside_var_tmp": (outside / "escaped.txt").exists(),
                "outside_tmp_sibling": (sibling / "escaped.txt").exists(),
                "inside": (box.project / "inside.txt").exists(),
                "network": (box.project / "net-ok").exists(),
                "sleeper_alive": bool(escaped),
            }
            kill_pids(live_pids_with(sleeper))
            return result
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def _fake_bwrap(root: Path) -> Path:
    """A `bwrap` that fails like one without user namespaces."""
    bindir = root / "fakebin"
    bindir.mkdir(parents=True, exist_ok=True)
    script = bindir / "bwrap"
    script.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return bindir


def fallback_checks(report: Report) -> None:
    holder = Path(tempfile.mkdtemp(prefix="rift-fakebwrap-"))
    try:
        path = f"{_fake_bwrap(holder)}{os.pathsep}{os.environ.get('PATH', '')}"
        broken = _scenario({"permissions": {"sandbox": "bwrap"}}, {"PATH": path})
        unknown = _scenario({"permissions": {"sandbox": "jail9000"}})
    finally:
        shutil.rmtree(holder, ignore_errors=True)
    for name, outcome, needle in (
        ("bwrap without namespaces", broken, "cannot create its namespaces"),
        ("unknown sandbox name", unknown, "unknown permissions.sandbox"),
    ):
        warned = outcome["stderr"].count(needle)
        fell_back = outcome["exit"] == 0 and outcome["inside"] and outcome["outside_var_tmp"]
        if warned != 1 or not fell_back:
            report.problem(f"fallback, {name}: {warned} warnings, ran unsandboxed={fell_back}")
        ok = int(warned == 1 and fell_back)
        report.add(f"fallback ({name}): one warning and the command ran", ok, want="== 1")


def run_confinement(report: Report) -> None:
    """The real sandbox against the same commands unsandboxed (needs working bwrap)."""
    plain = _scenario({})
    boxed = _scenario({"permissions": {"sandbox": "bwrap"}})
    networked = _scenario({"permissions": {"sandbox": "bwrap", "sandbox_network": True}})
    for label, outcome in (("without sandbox", plain), ("sandboxed", boxed)):
        report.notes.append(
            f"{label}: exit {outcome['exit']}, outside writes"
            f" {outcome['outside_var_tmp']}/{outcome['outside_tmp_sibling']},"
            f" project write {outcome['inside']}, network {outcome['network']},"
            f" setsid sleeper survived {outcome['sleeper_alive']}"
        )
    add = report.add
    add(
        "without sandbox: outside write landed (control)",
        int(plain["outside_var_tmp"]),
        want="== 1",
    )
    add("without sandbox: network reachable (control)", int(plain["network"]), want="== 1")
    outside = int(boxed["outside_var_tmp"]) + int(boxed["outside_tmp_sibling"])
    add("sandboxed: writes outside the project that landed", outside, want="== 0")
    add("sandboxed: project write landed", int(boxed["inside"]), want="== 1")
    add("sandboxed: network reachable", int(boxed["network"]), want="== 0")
    add("sandboxed + sandbox_network: network reachable", int(networked["network"]), want="== 1")
    add("sandboxed: setsid sleeper outlived its command", int(boxed["sleeper_alive"]), want="== 0")
    add(
        "without sandbox: setsid sleeper outlived rift -p", int(plain["sleeper_alive"]), want="== 0"
    )
    killed = sigkill_serve({"permissions": {"sandbox": "bwrap"}})
    add("sandboxed: processes left after SIGKILL of rift itself", max(killed.left, 0), want="== 0")


def run_sandbox() -> Report:
    """Confinement where bwrap works (else a skip note), and the fallback everywhere."""
    report = Report("bash sandbox (bubblewrap)")
    reason = probe()
    if reason is None:
        run_confinement(report)
    else:
        report.notes.append(f"confinement skipped: {reason}")
        report.skipped = reason
    fallback_checks(report)
    return report

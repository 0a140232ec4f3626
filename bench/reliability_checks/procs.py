"""Processes by /proc: who still carries a marker, who is in a process group."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from typing import Any


def _stat_fields(pid: str) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read().decode("ascii", errors="replace")
    except OSError:
        return None
    return raw.rsplit(")", 1)[-1].split()


def live_pids_with(marker: str) -> list[int]:
    """Processes (not zombies) whose command line contains `marker`."""
    found: list[int] = []
    needle = marker.encode()
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
        except OSError:
            continue
        fields = _stat_fields(entry)
        if needle in cmdline and fields and fields[0] != "Z":
            found.append(int(entry))
    return found


def program_of(pid: int) -> str:
    """The first word of a process's command line ("" when it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            argv0 = handle.read().split(b"\0", 1)[0]
    except OSError:
        return ""
    return os.path.basename(argv0.decode(errors="replace"))


def process_group(pid: int) -> int | None:
    fields = _stat_fields(str(pid))
    return int(fields[2]) if fields else None


def live_pids_in_groups(groups: set[int]) -> list[int]:
    """Processes (not zombies) whose process group is one of `groups`."""
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat_fields(entry)
        if fields and fields[0] != "Z" and int(fields[2]) in groups:
            found.append(int(entry))
    return found


def wait_until(predicate: Callable[[], Any], timeout: float, step: float = 0.02) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(step)


def kill_pids(pids: list[int]) -> None:
    """SIGKILL leftovers by pid (a failed check must not leak sleepers)."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)

"""Every process a command started, found again after it left the process group.

A process-group kill misses children that started their own session (`setsid`)
or that the command left running when it returned (`sleep 99 >/dev/null &`,
`nohup`): they outlived cancel and rift itself. Two nets catch them (Linux):

* each command rift runs gets its own token in its environment
  (`RIFT_PROCESS_TOKEN`), which every descendant inherits; `kill_marked(token)`
  kills all live processes carrying it (cancel, timeout, `task kill`), and
  `kill_all_marked()` those of every command (rift is exiting);
* rift makes itself a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`), so
  orphans are re-parented to rift instead of init and stay its descendants;
  at interpreter exit every remaining descendant is killed, which also catches a
  child that cleared its environment (`env -i`).

Best effort by nature: a process that both clears its environment and outlives a
SIGKILLed rift escapes (the bwrap sandbox's PID namespace closes that). Other
platforms keep the process-group kill only.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sys

TOKEN_VAR = "RIFT_PROCESS_TOKEN"
_PR_SET_CHILD_SUBREAPER = 36
_counter = itertools.count(1)
_installed = False
_shells: set[int] = set()
"""Pids of the shells rift spawned itself: asyncio waits for those, never reap them here."""


def new_token() -> str:
    """A token no other command of any rift process carries."""
    return f"{os.getpid()}.{next(_counter)}"


def marked_env(env: dict[str, str] | None, token: str) -> dict[str, str]:
    """`env` (default: rift's own) with the command's token set, and without rift's
    API keys (rift/fs/child_env.py: the command runs repository code)."""
    from rift.fs.child_env import child_environ

    marked = child_environ(env)
    marked[TOKEN_VAR] = token
    return marked


def install() -> None:
    """Become a child subreaper and kill leftovers at exit; once, Linux only."""
    global _installed
    if _installed or not sys.platform.startswith("linux"):
        return
    _installed = True
    import atexit
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    atexit.register(kill_everything)


def spawned(pid: int) -> None:
    """Record a shell rift started (asyncio owns its exit status)."""
    _shells.add(pid)


def kill_marked(token: str) -> None:
    """SIGKILL every live process carrying exactly this command's token."""
    _kill(_with_env(f"{TOKEN_VAR}={token}".encode() + b"\0"))


def kill_all_marked() -> None:
    """SIGKILL every process any command of this rift started (rift is exiting)."""
    _kill(_with_env(f"{TOKEN_VAR}={os.getpid()}.".encode()))


def kill_everything() -> None:
    """At exit: the marked processes, then every remaining descendant of rift."""
    kill_all_marked()
    _kill(_descendants())


# ------------------------------------------------------------------ internals


def _processes() -> list[int]:
    if not sys.platform.startswith("linux"):
        return []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    me = os.getpid()
    return [int(e) for e in entries if e.isdigit() and int(e) != me]


def _with_env(needle: bytes) -> list[int]:
    found: list[int] = []
    for pid in _processes():
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        if needle in environ:
            found.append(pid)
    return found


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[-1].split()
    except OSError:
        return None
    return int(fields[1]) if len(fields) > 1 else None


def _descendants() -> list[int]:
    children: dict[int, list[int]] = {}
    for pid in _processes():
        parent = _parent(pid)
        if parent is not None:
            children.setdefault(parent, []).append(pid)
    found: list[int] = []
    frontier = [os.getpid()]
    while frontier:
        kids = children.get(frontier.pop(), [])
        found += kids
        frontier += kids
    return found


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    me = os.getpid()
    for pid in pids:  # orphans re-parented to rift: reap what is already dead
        if pid not in _shells and _parent(pid) == me:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)

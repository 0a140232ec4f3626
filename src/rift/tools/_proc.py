"""Shell commands in their own process group, so a kill takes the whole tree.

`sh -c` forks children (pipelines, `&` jobs, dev servers) that outlive a plain
`proc.kill()` and keep the output pipes open, so every command rift runs for the
model starts a new session and is stopped with `killpg(SIGKILL)`. Children that
leave the group are found again by the token each command carries in its
environment (tools/_descendants.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

from msgspec import Struct

from rift.text.patterns import lazy
from rift.tools import _descendants

_CAPTURE_HALF = 1 << 20
"""Bytes kept from each end of a stream; outputs are middle-truncated far below this anyway."""

_ANSI = lazy(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC, BEL- or ST-terminated
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS/SOS/PM/APC strings
    r"|\x1b[ -/]*[0-~]?"  # other escapes (charset selection, keypad modes)
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # control characters except \t and \n
)


def strip_ansi(text: str) -> str:
    """Remove CSI/OSC sequences and control characters, keeping newlines and tabs."""
    return _ANSI().sub("", text)


class ShellResult(Struct, frozen=True):
    exit_code: int | None
    """None when the command was killed for running past its timeout."""
    stdout: str
    stderr: str
    timed_out: bool


class _Capture:
    """Keeps the head and the tail of a stream, so a chatty command cannot eat memory."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = _CAPTURE_HALF - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk:
            return
        self.tail += chunk
        excess = len(self.tail) - _CAPTURE_HALF
        if excess > 0:
            del self.tail[:excess]
            self.dropped += excess

    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if self.dropped:
            return f"{head}\n... [{self.dropped} bytes dropped] ...\n{tail}"
        return head + tail


async def spawn_shell(
    command: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    stdin: int = asyncio.subprocess.DEVNULL,
    token: str | None = None,
) -> asyncio.subprocess.Process:
    """Start `sh -c command` as the leader of a new process group, output piped,
    its environment marked with `token` (see `kill_tree`; default: a fresh one).

    A cancellation that lands while asyncio is still connecting the pipes would
    leave the child running (asyncio can only kill `sh`, and then waits for the
    pipes its children still hold), so creation is shielded and the group killed.
    """
    _descendants.install()
    token = token or _descendants.new_token()
    creating = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            "sh",
            "-c",
            command,
            cwd=cwd,
            env=_descendants.marked_env(env, token),
            stdin=stdin,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    )
    try:
        proc = await asyncio.shield(creating)
    except asyncio.CancelledError:
        with contextlib.suppress(OSError):
            proc = await creating
            _descendants.spawned(proc.pid)
            kill_tree(proc, token)
            await reap(proc)
        raise
    _descendants.spawned(proc.pid)
    return proc


def new_token() -> str:
    """A fresh command token, for callers that kill the command later (tasks)."""
    return _descendants.new_token()


def kill_tree(proc: asyncio.subprocess.Process, token: str) -> None:
    """SIGKILL the group `proc` leads (one already gone is fine) and every process
    carrying its token, wherever it went (`setsid`, `nohup`, re-parented orphans)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    _descendants.kill_marked(token)


def kill_every_command() -> None:
    """SIGKILL whatever any command rift ran left behind (rift is exiting)."""
    _descendants.kill_all_marked()


async def reap(proc: asyncio.subprocess.Process, grace: float = 5.0) -> None:
    """Wait (briefly) for a killed process so it does not linger as a zombie."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), grace)


async def _drain(stream: asyncio.StreamReader | None, sink: _Capture) -> None:
    if stream is None:
        return
    while chunk := await stream.read(65536):
        sink.add(chunk)


async def _feed(stream: asyncio.StreamWriter | None, data: bytes) -> None:
    """Write `data` to the child's stdin and close it; a child that exits early is fine."""
    if stream is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stream.write(data)
        await stream.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stream.close()


async def run_shell(
    command: str,
    cwd: Path,
    timeout: float,
    env: dict[str, str] | None = None,
    stdin_data: bytes | None = None,
) -> ShellResult:
    """Run a command to completion or to `timeout`, whichever comes first; on timeout or
    cancellation the whole process tree is killed and reaped (output read is kept).
    `stdin_data` is written to its stdin, else /dev/null. OSError: `sh` did not start.
    """
    token = new_token()
    stdin = asyncio.subprocess.DEVNULL if stdin_data is None else asyncio.subprocess.PIPE
    proc = await spawn_shell(command, cwd, env, stdin=stdin, token=token)
    feed = asyncio.sleep(0) if stdin_data is None else _feed(proc.stdin, stdin_data)
    out, err = _Capture(), _Capture()
    work = asyncio.gather(feed, _drain(proc.stdout, out), _drain(proc.stderr, err), proc.wait())
    # A cancelled wait_for never reads `work`'s CancelledError; mark it read, or asyncio
    # logs "_GatheringFuture exception was never retrieved" with a traceback.
    work.add_done_callback(lambda f: f.cancelled() or f.exception())
    timed_out = False
    try:
        await asyncio.wait_for(work, timeout)
    except TimeoutError:
        timed_out = True
        kill_tree(proc, token)
        await reap(proc)
    except asyncio.CancelledError:
        kill_tree(proc, token)
        await reap(proc)
        raise
    return ShellResult(
        exit_code=None if timed_out else proc.returncode,
        stdout=out.text(),
        stderr=err.text(),
        timed_out=timed_out,
    )

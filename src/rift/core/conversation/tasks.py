"""Background tasks: shell commands and sub-agents that outlive the tool call that started them.

At most 8 run at once, each keeping the last 256 KB of its output. A task that finishes
on its own emits `task_finished`; a killed one reports nothing. Every task dies with
rift, its whole process tree with it, and whatever any command left running.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from rift.errors import ToolError
from rift.events import Event, TaskFinished, TaskStarted
from rift.tools._proc import kill_every_command, kill_tree, new_token, reap, spawn_shell, strip_ansi
from rift.tools.base import middle_truncate

MAX_RUNNING = 8
BUFFER_CAP = 262_144
TRIMMED = "[…output trimmed…]\n"
PREVIEW_BYTES = 1000
READ_CAP = 20_000


class _Task(Struct, dict=True):
    id: int
    label: str
    kind: str  # "shell" | "agent"
    started: float = field(default_factory=time.monotonic)
    output: bytearray = field(default_factory=bytearray)
    trimmed: bool = False
    status: str = "running"
    proc: asyncio.subprocess.Process | None = None
    token: str = ""
    """The shell's process token (tools/_descendants.py): what `kill` takes down."""
    runner: asyncio.Task[None] | None = None

    def append(self, data: bytes) -> None:
        self.output += data
        excess = len(self.output) - BUFFER_CAP
        if excess > 0:
            del self.output[:excess]
            self.trimmed = True

    def text(self) -> str:
        body = strip_ansi(self.output.decode("utf-8", errors="replace"))
        return (TRIMMED + body) if self.trimmed else body

    @property
    def running(self) -> bool:
        return self.status == "running"


class TaskRegistry:
    """Owns every background task of one rift process."""

    def __init__(self, emit: Callable[[Event], None]) -> None:
        self._emit = emit
        self._ids = itertools.count(1)
        self._tasks: dict[int, _Task] = {}
        self.on_finished: Callable[[TaskFinished], None] | None = None
        """Told of every task that finished on its own (the conversation queues a note)."""

    def _new(self, label: str, kind: str) -> _Task:
        if self.running_count >= MAX_RUNNING:
            raise ToolError(
                f"background task limit reached ({MAX_RUNNING} running); kill one with the"
                " task tool or wait for one to finish"
            )
        task = _Task(id=next(self._ids), label=label, kind=kind)
        self._tasks[task.id] = task
        return task

    async def start_shell(self, command: str, cwd: Path, label: str | None = None) -> str:
        """Start `command` in its own process group with a stdin pipe."""
        task = self._new(label or command, "shell")
        task.token = new_token()
        try:
            task.proc = await spawn_shell(
                command, cwd, stdin=asyncio.subprocess.PIPE, token=task.token
            )
        except OSError as exc:
            del self._tasks[task.id]
            raise ToolError(f"could not start the command: {exc}") from exc
        task.runner = asyncio.create_task(self._watch_shell(task))
        self._emit(TaskStarted(id=task.id, label=task.label))
        return (
            f"started background task #{task.id} (pid {task.proc.pid}): {task.label}\n"
            f"Read its output with the task tool (id {task.id}); it keeps running until it"
            " exits or is killed."
        )

    def start_agent(self, label: str, work: Coroutine[Any, Any, str]) -> int:
        """Run a sub-agent in the background; its final report becomes the task output."""
        task = self._new(label, "agent")
        task.runner = asyncio.create_task(self._watch_agent(task, work))
        self._emit(TaskStarted(id=task.id, label=task.label))
        return task.id

    async def _watch_shell(self, task: _Task) -> None:
        proc = task.proc
        assert proc is not None

        async def pump(stream: asyncio.StreamReader | None) -> None:
            while stream is not None and (chunk := await stream.read(65536)):
                task.append(chunk)

        await asyncio.gather(pump(proc.stdout), pump(proc.stderr))
        code = await proc.wait()
        if task.status == "killed":
            return
        task.status = "done" if code == 0 else f"failed (exit {code})"
        self._finished(task, ok=code == 0)

    async def _watch_agent(self, task: _Task, work: Coroutine[Any, Any, str]) -> None:
        try:
            report = await work
            ok = True
        except asyncio.CancelledError:
            return
        except Exception as exc:
            report, ok = f"ERROR: sub-agent failed: {exc}", False
        task.append(report.encode("utf-8"))
        if task.status != "killed":
            task.status = "done" if ok else "failed"
            self._finished(task, ok)

    def _finished(self, task: _Task, ok: bool) -> None:
        tail = task.text()[-PREVIEW_BYTES:]
        event = TaskFinished(id=task.id, label=task.label, ok=ok, preview=tail)
        self._emit(event)
        if self.on_finished is not None:
            self.on_finished(event)

    def describe(self) -> str:
        if not self._tasks:
            return "(no background tasks)"
        now = time.monotonic()
        return "\n".join(
            f"#{t.id} [{t.status}] {t.label} ({t.kind}, {int(now - t.started)}s,"
            f" {len(t.output)} bytes of output)"
            for t in self._tasks.values()
        )

    def _get(self, task_id: int) -> _Task:
        task = self._tasks.get(task_id)
        if task is None:
            raise ToolError(f"no background task #{task_id}")
        return task

    def read(self, task_id: int) -> str:
        task = self._get(task_id)
        body = middle_truncate(task.text(), READ_CAP) or "(no output yet)"
        return f"#{task.id} [{task.status}] {task.label}\n{body}"

    async def send_input(self, task_id: int, line: str) -> str:
        task = self._get(task_id)
        stdin = task.proc.stdin if task.proc else None
        if not task.running or stdin is None or stdin.is_closing():
            raise ToolError(f"task #{task_id} is not accepting input ({task.status})")
        stdin.write((line if line.endswith("\n") else line + "\n").encode("utf-8"))
        await stdin.drain()
        return f"sent a line to task #{task_id}"

    def close_stdin(self, task_id: int) -> str:
        task = self._get(task_id)
        if task.proc is None or task.proc.stdin is None:
            raise ToolError(f"task #{task_id} has no stdin")
        task.proc.stdin.close()
        return f"closed stdin of task #{task_id}"

    async def kill(self, task_id: int) -> str:
        task = self._get(task_id)
        if not task.running:
            return f"task #{task_id} already {task.status}"
        task.status = "killed"
        await self._stop(task)
        return f"killed task #{task_id}"

    async def _stop(self, task: _Task) -> None:
        if task.proc is not None:
            kill_tree(task.proc, task.token)
            await reap(task.proc)
        if task.runner is not None and task.kind == "agent":
            task.runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task.runner

    @property
    def running_count(self) -> int:
        return sum(1 for t in self._tasks.values() if t.running)

    async def shutdown(self) -> None:
        """Kill every running task (rift is exiting); nothing reports as finished. What
        finished commands left running (`sleep 99 &`, `setsid ...`) goes too."""
        for task in self._tasks.values():
            if task.running:
                task.status = "killed"
                await self._stop(task)
        kill_every_command()

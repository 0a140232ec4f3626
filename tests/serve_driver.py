"""A small driver for `rift --serve` subprocesses, shared by integration tests."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from rift_bin import rift_command


class ServeProcess:
    """Spawn `rift --serve`, send commands, and collect events with timeouts."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [*rift_command(), "--serve", *args],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ),
        )
        self.events: list[dict[str, Any]] = []
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            event = json.loads(line)  # every stdout line must be one JSON object
            assert isinstance(event, dict)
            self._queue.put(event)
        self._queue.put(None)

    def send(self, command: dict[str, Any] | bytes) -> None:
        assert self.proc.stdin is not None
        data = command if isinstance(command, bytes) else json.dumps(command).encode()
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def until(self, name: str, timeout: float = 20.0, **fields: Any) -> dict[str, Any]:
        """Collect events until one named `name` (with matching fields) arrives."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {name} event within {timeout}s; got {self.events}")
            try:
                event = self._queue.get(timeout=left)
            except queue.Empty:
                continue
            if event is None:
                raise AssertionError(f"rift exited before {name}; got {self.events}")
            self.events.append(event)
            if event.get("event") == name and all(event.get(k) == v for k, v in fields.items()):
                return event

    def named(self, name: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("event") == name]

    def close(self, timeout: float = 15.0) -> int:
        """Close stdin (rift saves and exits) and return the exit status."""
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout)
        finally:
            while True:
                try:
                    event = self._queue.get_nowait()
                except queue.Empty:
                    break
                if event is not None:
                    self.events.append(event)


def processes_with(marker: str) -> list[int]:
    """PIDs whose command line contains `marker` (to prove nothing was left running)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(int(entry.name))
    return found


def wait_gone(marker: str, timeout: float = 5.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (left := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left

"""Helpers for the end-to-end tests: the real `rift` CLI against the scripted fake server.

Every test here spawns `rift -p …` or `rift --serve` as a subprocess (the
tests/conftest.py autouse fixture has already pointed HOME and XDG at a temp
dir) and judges it only by what a user could see: exit status, stdout/stderr,
files on disk, the session file and the fake server's request log.

Helpers are handed out as fixtures (`harness`, `serve`) rather than imported,
because several conftest.py modules share the module name `conftest`.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

MODEL = "fake-model"


def rift_argv() -> list[str]:
    """The rift under test: RIFT_BIN when set (conformance against another build)."""
    custom = os.environ.get("RIFT_BIN")
    return custom.split() if custom else [sys.executable, "-m", "rift"]


# ------------------------------------------------------------------ processes


def marker_pids(marker: str) -> list[int]:
    """Processes whose command line contains `marker` (the test's own unique string)."""
    found: list[int] = []
    needle = marker.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
            with open(f"/proc/{entry}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[-1].split()[0]
        except OSError:
            continue
        if needle in cmdline and state != b"Z":  # a zombie is dead, just not reaped
            found.append(int(entry))
    return found


def wait_for(predicate: Callable[[], Any], timeout: float, interval: float = 0.02) -> Any:
    """Poll until `predicate()` is truthy; returns its value, or the last falsy one."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


class Marker:
    """A unique token for a long-running command, and the processes carrying it.

    The token is also a valid `sleep` length, so the `sleep` child is found as
    well as the `sh` running it (a plain `echo MARKER` only tags the shell).
    """

    def __init__(self) -> None:
        self.seconds = f"300.{uuid.uuid4().int % 10**12:012d}"
        self.text = f"MARKER_{self.seconds}"

    def __str__(self) -> str:
        return self.text

    def command(self) -> str:
        """`sleep <token>; echo MARKER_<token>`: five minutes, unless something kills it."""
        return f"sleep {self.seconds}; echo {self.text}"

    def pids(self) -> list[int]:
        return marker_pids(self.seconds)

    def wait_alive(self, timeout: float = 10) -> bool:
        return bool(wait_for(self.pids, timeout))

    def wait_gone(self, timeout: float = 2) -> bool:
        return bool(wait_for(lambda: not self.pids(), timeout))


@pytest.fixture
def marker() -> Iterator[Marker]:
    """A fresh Marker; any process still carrying it is SIGKILLed (by pid) when the
    test ends, so a failing test cannot leak a sleeper."""
    made = Marker()
    yield made
    for pid in made.pids():
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


# -------------------------------------------------------------------- sessions


def load_session(path: str | Path) -> dict[str, Any]:
    """Parse a session file and check the invariants every saved session must keep."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    assert isinstance(data, dict), data
    assert set(data) >= {"model", "saved_at", "cwd", "messages"}, sorted(data)
    messages = data["messages"]
    assert isinstance(messages, list)
    for i, message in enumerate(messages):
        assert message["role"] in {"system", "user", "assistant", "tool"}, message
        assert isinstance(message["content"], str), message
        calls = message.get("tool_calls") or []
        if not calls:
            continue
        ids = [call["id"] for call in calls]
        assert all(ids), f"a stored tool call has no id: {message}"
        answered = [m.get("tool_call_id") for m in messages[i + 1 :] if m["role"] == "tool"]
        for call_id in ids:
            assert call_id in answered, f"tool call {call_id} has no tool result"
        # Strict OpenAI-compatible servers need the results right after the call.
        following = messages[i + 1 : i + 1 + len(calls)]
        assert [m["role"] for m in following] == ["tool"] * len(calls), following
    return data


# --------------------------------------------------------------------- headless


@dataclass
class RiftRun:
    """One finished `rift -p` run."""

    proc: subprocess.CompletedProcess[str]
    server: Any

    @property
    def code(self) -> int:
        return self.proc.returncode

    @property
    def stdout(self) -> str:
        return self.proc.stdout

    @property
    def stderr(self) -> str:
        return self.proc.stderr

    @property
    def result(self) -> dict[str, Any]:
        """The `--output-format json` object (exactly one JSON document on stdout)."""
        return json.loads(self.proc.stdout)

    @property
    def session_path(self) -> Path:
        return Path(self.result["session"])

    def session(self) -> dict[str, Any]:
        return load_session(self.session_path)

    def tool_results(self) -> dict[str, str]:
        """The session's tool result texts by tool_call_id."""
        return {
            m["tool_call_id"]: m["content"]
            for m in self.session()["messages"]
            if m["role"] == "tool"
        }

    def describe(self) -> str:
        return f"exit {self.code}\n--- stdout ---\n{self.stdout}\n--- stderr ---\n{self.stderr}"


class Harness:
    """Starts fake servers and runs `rift -p` in the test's project directory."""

    def __init__(self, project: Path, start_server: Callable[[dict[str, Any]], Any]) -> None:
        self.project = project
        self._start_server = start_server

    def server(self, turns: list[dict[str, Any]] | None = None, **script: Any) -> Any:
        return self._start_server({"turns": turns or [], **script})

    def write_config(self, data: dict[str, Any]) -> Path:
        """The user config (~/.config/rift/config.json under the isolated XDG dir)."""
        path = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    def write_project_config(self, data: dict[str, Any]) -> Path:
        path = self.project / ".rift.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    def cli(self, args: list[str], timeout: float = 30) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*rift_argv(), *args],
            cwd=self.project,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env=dict(os.environ),
        )

    def start(self, prompt: str, server: Any, *extra: str) -> subprocess.Popen[str]:
        """`rift -p PROMPT … --output-format json` left running (to signal it mid-turn)."""
        args = ["-p", prompt, "--host", server.url, "-m", MODEL, "--output-format", "json"]
        return subprocess.Popen(
            [*rift_argv(), *args, *extra],
            cwd=self.project,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
        )

    @staticmethod
    def finish(proc: subprocess.Popen[str], server: Any, timeout: float = 10) -> RiftRun:
        """Wait for a `start`ed run; it is killed if it outlives `timeout`."""
        try:
            out, err = proc.communicate(timeout=timeout)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
        return RiftRun(done, server)

    def run(
        self,
        prompt: str,
        server: Any,
        *extra: str,
        json_output: bool = True,
        openai: bool = False,
        timeout: float = 30,
    ) -> RiftRun:
        """`rift -p PROMPT --host <fake> -m fake-model [--output-format json] EXTRA…`."""
        host = server.v1_url if openai else server.url
        args = ["-p", prompt, "--host", host, "-m", MODEL, *extra]
        if json_output:
            args += ["--output-format", "json"]
        return RiftRun(self.cli(args, timeout), server)


@pytest.fixture
def harness(project: Path, fake_server: Callable[[dict[str, Any]], Any]) -> Harness:
    return Harness(project, fake_server)


# ------------------------------------------------------------------------ serve


class ServeClient:
    """A running `rift --serve`: send commands, wait for events."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.events: list[dict[str, Any]] = []
        self._inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._seen = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            text = line.decode("utf-8", errors="replace").strip()
            if text:
                self._inbox.put(json.loads(text))
        self._inbox.put(None)

    def send(self, command: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(command) + "\n").encode())
        self.proc.stdin.flush()

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def expect(self, kind: str, /, timeout: float = 10, **fields: Any) -> dict[str, Any]:
        """The next event of this kind (with these field values) after the last one
        returned; earlier, non-matching events are kept in `events`."""
        deadline = time.monotonic() + timeout
        while True:
            while self._seen < len(self.events):
                event = self.events[self._seen]
                self._seen += 1
                if event["event"] == kind and all(event.get(k) == v for k, v in fields.items()):
                    return event
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {kind} {fields} within {timeout}s; got {self.events}")
            try:
                item = self._inbox.get(timeout=left)
            except queue.Empty:
                continue
            if item is None:
                raise AssertionError(f"serve exited before {kind} {fields}; got {self.events}")
            self.events.append(item)

    def session(self) -> dict[str, Any]:
        """The session file named by `ready` (checked like every saved session)."""
        ready = next(e for e in self.events if e["event"] == "ready")
        return load_session(ready["session"])

    def stderr(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode("utf-8", errors="replace")


@pytest.fixture
def serve(project: Path) -> Iterator[Callable[..., ServeClient]]:
    """Factory: serve(server, *extra_args) → a ServeClient whose `ready` has arrived."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(server: Any, *extra: str) -> ServeClient:
        proc = subprocess.Popen(
            [*rift_argv(), "--serve", "--host", server.url, "-m", MODEL, *extra],
            cwd=project,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ),
        )
        procs.append(proc)
        client = ServeClient(proc)
        client.expect("ready")
        return client

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)

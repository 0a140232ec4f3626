"""`ServeSession`: one real `rift --serve` process, driven over its stdio like an editor would.

The suite is black-box on purpose: it only spawns the binary (`rift_command()`,
so `RIFT_BIN=... pytest tests/conformance` checks another build), writes
command lines and reads event lines. Every stdout line is checked to be one
JSON object with an `event` name the moment it arrives; a line that is not
fails the test that is reading, and `close()` fails if any slipped past.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

DEFAULT_TIMEOUT = 10.0
_EOF = object()
_TIMEOUT = object()


def _load_rift_command() -> Callable[[], list[str]]:
    # tests/conftest.py owns rift_command (RIFT_BIN); two modules cannot both be
    # imported as `conftest`, so load that file under a name of its own.
    path = Path(__file__).resolve().parent.parent / "conftest.py"
    spec = importlib.util.spec_from_file_location("_rift_tests_root_conftest", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    command: Callable[[], list[str]] = module.rift_command
    return command


rift_command = _load_rift_command()


def isolated_environ(home: Path) -> dict[str, str]:
    """os.environ with HOME/XDG under `home` and no RIFT_* overrides (RIFT_BIN kept).

    For fixtures wider than one test, which run before the autouse per-test
    isolation does.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIFT_") or k == "RIFT_BIN"}
    for sub in (".config", ".local/share", ".cache"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_CACHE_HOME=str(home / ".cache"),
    )
    return env


class ServeSession:
    """A running `rift --serve [args]` in `cwd`; events are read in arrival order."""

    def __init__(
        self, args: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None
    ) -> None:
        self.command = [*rift_command(), "--serve", *args]
        self.proc = subprocess.Popen(
            self.command,
            cwd=cwd,
            env=dict(os.environ if env is None else env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.events: list[dict[str, Any]] = []
        """Every event read so far, in order."""
        self.bad_lines: list[bytes] = []
        self._queue: queue.Queue[object] = queue.Queue()
        self._stderr: list[bytes] = []
        self._eof = False
        self._threads = [
            threading.Thread(target=self._pump_stdout, daemon=True),
            threading.Thread(target=self._pump_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    # ------------------------------------------------------------- plumbing

    def _pump_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                event = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                event = None
            if not isinstance(event, dict) or not isinstance(event.get("event"), str):
                self.bad_lines.append(line)
                self._queue.put(line)
            else:
                self._queue.put(event)
        self._queue.put(_EOF)

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self._stderr.append(line)

    def _exit_status(self) -> int | None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=2)
        return self.proc.poll()

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", errors="replace")

    def _describe(self, since: int) -> str:
        shown = "\n".join(json.dumps(e)[:300] for e in self.events[since:])
        return f"events so far:\n{shown or '(none)'}\nstderr tail:\n{self.stderr[-2000:]}"

    # ------------------------------------------------------------- commands

    def send(self, command: Mapping[str, Any] | bytes | str) -> None:
        """Write one command line: a dict as compact JSON, bytes/str verbatim (+ newline)."""
        if isinstance(command, Mapping):
            data = json.dumps(command, ensure_ascii=False).encode("utf-8")
        elif isinstance(command, str):
            data = command.encode("utf-8")
        else:
            data = command
        if not data.endswith(b"\n"):
            data += b"\n"
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def prompt(self, text: str) -> None:
        self.send({"cmd": "prompt", "text": text})

    # ---------------------------------------------------------------- events

    def _poll(self, timeout: float) -> dict[str, Any] | object | None:
        """The next validated event, None at EOF, or `_TIMEOUT`."""
        if self._eof:
            return None
        try:
            item = self._queue.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return _TIMEOUT
        if item is _EOF:
            self._eof = True
            return None
        if isinstance(item, bytes):
            raise AssertionError(f"stdout line is not a JSON event object: {item[:300]!r}")
        assert isinstance(item, dict)
        self.events.append(item)
        return item

    def next_event(self, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any] | None:
        """The next event, or None once stdout has closed."""
        item = self._poll(timeout)
        if item is _TIMEOUT:
            since = max(0, len(self.events) - 15)
            raise AssertionError(f"no event within {timeout}s\n{self._describe(since)}")
        assert item is None or isinstance(item, dict)
        return item

    def read_until(
        self, name: str, timeout: float = DEFAULT_TIMEOUT, **fields: Any
    ) -> list[dict[str, Any]]:
        """Events up to and including the first `name` event whose `fields` match."""
        since = len(self.events)
        deadline = time.monotonic() + timeout
        out: list[dict[str, Any]] = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"no {name} {fields or ''} within {timeout}s\n" + self._describe(since)
                )
            event = self.next_event(left)
            if event is None:
                raise AssertionError(
                    f"stdout closed before {name} (exit status {self._exit_status()})\n"
                    + self._describe(since)
                )
            out.append(event)
            if event["event"] == name and all(event.get(k) == v for k, v in fields.items()):
                return out

    def expect(self, name: str, timeout: float = DEFAULT_TIMEOUT, **fields: Any) -> dict[str, Any]:
        """The first matching event (skipping others); see `read_until`."""
        return self.read_until(name, timeout, **fields)[-1]

    def barrier(self) -> list[dict[str, Any]]:
        """Events that arrive before the answer to a `list_sessions` sent now.

        list_sessions is answered synchronously, so anything a previous
        command emits synchronously is already on stdout before `sessions`.
        """
        self.send({"cmd": "list_sessions"})
        return self.read_until("sessions")[:-1]

    def drain(self, quiet: float = 0.3) -> list[dict[str, Any]]:
        """Events until none arrives for `quiet` seconds (or stdout closes)."""
        out: list[dict[str, Any]] = []
        while isinstance(item := self._poll(quiet), dict):
            out.append(item)
        return out

    # -------------------------------------------------------------- lifetime

    def close(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        """Close stdin, read the rest of stdout, wait for exit; returns the exit status."""
        assert self.proc.stdin is not None
        if not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
        deadline = time.monotonic() + timeout
        while self._poll(deadline - time.monotonic()) not in (None, _TIMEOUT):
            pass
        try:
            rc = self.proc.wait(max(0.01, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(
                f"rift did not exit within {timeout}s of stdin closing\n{self._describe(0)}"
            ) from None
        for thread in self._threads:
            thread.join(timeout=2)
        assert not self.bad_lines, f"non-JSON stdout lines: {self.bad_lines[:3]!r}"
        return rc

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=5)
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(OSError):  # the pipe broke with the process
                self.proc.stdin.close()

    def names(self, events: Sequence[Mapping[str, Any]] | None = None) -> list[str]:
        return [e["event"] for e in (self.events if events is None else events)]


# ------------------------------------------------------------ script helpers


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    """One scripted tool call for a fake-server turn."""
    return {"name": name, "arguments": arguments}


def edit_call(path: str, old: str, new: str) -> dict[str, Any]:
    return tool_call("edit", path=path, old_string=old, new_string=new)


def reassemble(segments: Sequence[Mapping[str, Any]], accepted: set[int]) -> str:
    """A reviewer's content: `same` lines, plus new lines of accepted change segments.

    `accepted` holds indexes into `segments`; unaccepted changes keep their old lines.
    """
    lines: list[str] = []
    for index, segment in enumerate(segments):
        if segment["same"]:
            lines += segment["lines"]
        else:
            lines += segment["new"] if index in accepted else segment["old"]
    return "\n".join(lines)


def live_processes_with(marker: str) -> list[int]:
    """Pids of live (non-zombie) processes whose command line contains `marker`."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            pids.append(int(entry.name))
    return pids


def wait_for(predicate: Callable[[], bool], timeout: float, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()

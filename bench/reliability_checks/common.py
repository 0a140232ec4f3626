"""Shared pieces: figures, an isolated environment, a raw `rift --serve` driver, /proc scans."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
MODEL = "fake-model"

try:  # the benchmark may run from a checkout where rift is not installed
    import rift  # noqa: F401
except ImportError:  # pragma: no cover - depends on how the bench is started
    sys.path.insert(0, str(REPO / "src"))
sys.path.append(str(REPO / "tests"))  # the fake model server: tests/fakes/

from fakes.fake_server import FakeModelServer  # noqa: E402

# ------------------------------------------------------------------ figures


@dataclass
class Figure:
    """One printed number and the value it must have (None: informational)."""

    name: str
    value: float
    unit: str = ""
    want: str | None = None
    """"== 0", "<= 30", ">= 100": the condition the value must meet."""

    @property
    def ok(self) -> bool:
        if self.want is None:
            return True
        op, _, raw = self.want.partition(" ")
        limit = float(raw)
        return {
            "==": self.value == limit,
            "<=": self.value <= limit,
            ">=": self.value >= limit,
        }[op]


@dataclass
class Report:
    """The figures of one check, plus a few examples of what went wrong."""

    title: str
    figures: list[Figure] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skipped: str | None = None
    """Why part of the check could not run here (e.g. no user namespaces)."""

    def add(self, name: str, value: float, unit: str = "", want: str | None = None) -> None:
        self.figures.append(Figure(name, value, unit, want))

    def problem(self, text: str, keep: int = 20) -> None:
        if len(self.problems) < keep:
            self.problems.append(text[:400])

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.figures)

    def failing(self) -> list[Figure]:
        return [f for f in self.figures if not f.ok]

    def describe(self) -> str:
        lines = [f"{self.title}:"]
        for f in self.figures:
            want = f" (want {f.want})" if f.want else ""
            mark = "" if f.ok else "  <-- FAIL"
            lines.append(f"  {f.name}: {_fmt(f.value)}{f.unit}{want}{mark}")
        lines += [f"  note: {n}" for n in self.notes]
        lines += [f"  problem: {p}" for p in self.problems]
        return "\n".join(lines)


def _fmt(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) and not value.is_integer() else f"{value:.0f}"


# -------------------------------------------------------------- environment


def rift_argv() -> list[str]:
    """The rift under test: RIFT_BIN when set, else this interpreter's `-m rift`."""
    custom = os.environ.get("RIFT_BIN")
    return shlex.split(custom) if custom else [sys.executable, "-m", "rift"]


@dataclass
class Sandbox:
    """A throwaway HOME (config, data, cache) and project directory."""

    root: Path
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def config_dir(self) -> Path:
        return self.home / ".config" / "rift"

    @property
    def data_dir(self) -> Path:
        return self.home / ".local" / "share" / "rift"

    @property
    def sessions_dir(self) -> Path:
        return self.data_dir / "sessions"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RIFT_")}
        if "RIFT_BIN" in os.environ:
            env["RIFT_BIN"] = os.environ["RIFT_BIN"]
        env.update(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_DATA_HOME=str(self.home / ".local" / "share"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            PYTHONDONTWRITEBYTECODE="1",
        )
        src = str(REPO / "src")
        env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
        env.update(self.extra_env)
        return env

    def write_user_config(self, data: dict[str, Any]) -> Path:
        path = self.config_dir / "config.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data), encoding="utf-8")
        return path


@contextlib.contextmanager
def sandbox(**extra_env: str) -> Iterator[Sandbox]:
    """A fresh `Sandbox` under the system temp dir, removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="rift-rel-"))
    box = Sandbox(root, dict(extra_env))
    for sub in (".config", ".local/share", ".cache"):
        (box.home / sub).mkdir(parents=True, exist_ok=True)
    box.project.mkdir()
    try:
        yield box
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def fake_server(
    script: dict[str, Any], port: int = 0, log_path: Path | None = None
) -> Iterator[FakeModelServer]:
    server = FakeModelServer(script, log_path=log_path, port=port)
    server.start()
    try:
        yield server
    finally:
        server.stop()


# ------------------------------------------------------------------- serve


class Serve:
    """A raw `rift --serve`: bytes in, every stdout line checked as one JSON object.

    stderr goes to a file (a pipe nobody reads would block rift once it filled).
    """

    def __init__(self, box: Sandbox, *args: str) -> None:
        self.box = box
        self.stderr_path = box.root / f"stderr-{time.monotonic_ns()}.txt"
        self._stderr = self.stderr_path.open("wb")
        self.proc = subprocess.Popen(
            [*rift_argv(), "--serve", *args],
            cwd=box.project,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=box.env(),
        )
        self.events: list[dict[str, Any]] = []
        self.bad_stdout: list[bytes] = []
        self._inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._seen = 0
        self._send_lock = threading.Lock()
        self.ended = threading.Event()
        """Set once stdout reached EOF (rift exited)."""
        self.watchers: list[Callable[[dict[str, Any]], None]] = []
        """Called from the reader thread for every event (kill on sight, say)."""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                event = None
            if not isinstance(event, dict) or not isinstance(event.get("event"), str):
                self.bad_stdout.append(raw[:200])
                continue
            for watch in self.watchers:
                watch(event)
            self._inbox.put(event)
        self._inbox.put(None)
        self.ended.set()

    # ---------------------------------------------------------------- input

    def send(self, command: dict[str, Any] | bytes) -> bool:
        """Write one line; False when rift is gone (the pipe broke)."""
        assert self.proc.stdin is not None
        data = command if isinstance(command, bytes) else json.dumps(command).encode()
        with self._send_lock:  # watchers answer from the reader thread
            try:
                self.proc.stdin.write(data + b"\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                return False
        return True

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        with contextlib.suppress(OSError, ValueError):
            self.proc.stdin.close()

    # --------------------------------------------------------------- output

    def next_event(self, timeout: float) -> dict[str, Any] | None:
        """The next unread event, or None on timeout or when rift has exited."""
        if self._seen < len(self.events):
            self._seen += 1
            return self.events[self._seen - 1]
        try:
            item = self._inbox.get(timeout=max(timeout, 0))
        except queue.Empty:
            return None
        if item is None:
            self._inbox.put(None)  # keep reporting the end
            return None
        self.events.append(item)
        self._seen += 1
        return item

    def collect_until(
        self, done: Callable[[dict[str, Any]], bool], timeout: float
    ) -> tuple[list[dict[str, Any]], bool]:
        """Read events until `done(event)`; returns (events read, whether `done` fired)."""
        got: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return got, False
            event = self.next_event(min(left, 0.2))
            if event is None:
                if self.ended.is_set() and self._inbox.qsize() <= 1:
                    return got, False  # rift exited and every event has been read
                continue
            got.append(event)
            if done(event):
                return got, True

    def expect(self, name: str, timeout: float = 20.0) -> dict[str, Any]:
        got, ok = self.collect_until(lambda e: e["event"] == name, timeout)
        if not ok:
            tail = [e["event"] for e in got][-20:]
            raise AssertionError(f"no {name} within {timeout}s; got {tail}; {self.stderr()}")
        return got[-1]

    def stderr(self) -> str:
        if not self._stderr.closed:
            self._stderr.flush()
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")[-3000:]

    # ------------------------------------------------------------- shutdown

    def finish(self, timeout: float = 20.0) -> int | None:
        """Close stdin and wait; the exit status, or None if rift had to be killed."""
        self.close_stdin()
        try:
            code: int | None = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            code = None
        self._reader.join(5)
        while self.next_event(0) is not None:
            pass
        self._stderr.close()
        return code

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.send_signal(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)


def check_session(path: str | Path) -> str | None:
    """None when the session file is valid: JSON with a message list in which every tool
    call is answered right after it; else what is wrong. An empty (reserved) file is valid."""
    data, why = load_json(Path(path))
    if why is not None:
        return why
    if data == "":
        return None
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        return f"{Path(path).name}: not a session object"
    messages = data["messages"]
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in {
            "system",
            "user",
            "assistant",
            "tool",
        }:
            return f"{Path(path).name}: message {i} is malformed"
        calls = message.get("tool_calls") or []
        following = messages[i + 1 : i + 1 + len(calls)]
        answered = [m.get("tool_call_id") for m in following if isinstance(m, dict)]
        if [c.get("id") for c in calls] != answered:
            return f"{Path(path).name}: tool calls of message {i} are not answered in order"
    return None


def load_json(path: Path) -> tuple[Any, str | None]:
    """(data, None) or (None, why it did not parse); an empty file gives ("", None) and a
    missing one (None, None)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, str(exc)
    if not raw:
        return "", None
    try:
        return json.loads(raw), None
    except ValueError as exc:
        return None, f"{path.name}: {exc}"

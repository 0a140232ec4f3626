"""rift's performance benchmarks: one command, one table, one JSON file.

    python bench/run.py [--quick] [--json PATH]

Every figure comes from whole `rift` processes (or, for the two pure
functions, many in-process calls) repeated after a warm-up; the median is
printed beside a baseline measured in the same run, because the machines this
runs on are noisy and only the ratio travels between them. The fake model
server (`tests/fakes/fake_server.py`) runs in this process, so the moment each
model request arrives is read on the same clock that spawned rift.

Peak RSS comes from `os.wait4`: the kernel's ru_maxrss over the rift process
and every descendant it waited for (the number a wrapper's
`getrusage(RUSAGE_CHILDREN)` reports: the largest single process, not a sum;
the scripted task starts no subprocess, so it is rift's own). No sampling
thread runs beside the timings.

Bytecode is cached in a private PYTHONPYCACHEPREFIX (an inherited
PYTHONDONTWRITEBYTECODE would recompile every rift module on every spawn,
which no installed rift does).

Results also go to bench/results/latest.json.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import difflib
import http.client
import json
import os
import platform
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src"
RESULTS = REPO / "bench" / "results" / "latest.json"
CHAT_SUFFIXES = ("/api/chat", "/chat/completions")
MODEL = "fake-model"
PROC_TIMEOUT = 60.0
BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"


def _ensure_importable() -> bool:
    """Make `rift` importable here; True when the `rift` in use is this checkout's src/.

    Then the rift processes timed get src/ on PYTHONPATH too, so they run this
    tree even where the interpreter has another checkout installed (editable).
    """
    try:
        import rift
    except ImportError:
        sys.path.insert(0, str(SRC))
        return True
    return Path(rift.__file__).resolve().is_relative_to(SRC)


ADDED_SRC = _ensure_importable()

from rift.core.permissions.hunks import diff_segments  # noqa: E402
from rift.core.sessions.loading import load_session  # noqa: E402
from rift.core.sessions.store import save_session  # noqa: E402

sys.path.append(str(REPO / "tests"))  # the fake model server: tests/fakes/

from fakes.fake_server import FakeModelServer  # noqa: E402


def rift_python() -> str:
    """The interpreter that runs rift: this one if it has rift and httpx, else the repo venv."""
    override = os.environ.get("RIFT_BENCH_PYTHON")
    if override:
        return override
    probe = subprocess.run(
        [sys.executable, "-c", "import rift.cli, httpx"], capture_output=True, check=False
    )
    venv = REPO / ".venv" / "bin" / "python"
    if probe.returncode != 0 and venv.exists():
        return str(venv)
    return sys.executable


PY = rift_python()
RIFT = [PY, "-m", "rift"]


# ------------------------------------------------------------------ results


@dataclass
class Row:
    key: str
    label: str
    value: float
    unit: str
    samples: list[float] = field(default_factory=list)
    baseline: float | None = None
    baseline_label: str = ""
    goal: float | None = None
    goal_op: str = "<="
    note: str = ""
    goal_ratio: float | None = None
    """A goal relative to the floor: met when `ratio` is at most this."""

    @property
    def ratio(self) -> float | None:
        if self.baseline is None or self.baseline == 0:
            return None
        return self.value / self.baseline

    @property
    def met(self) -> bool | None:
        if self.goal_ratio is not None:
            ratio = self.ratio
            return None if ratio is None else ratio <= self.goal_ratio
        if self.goal is None:
            return None
        return self.value <= self.goal if self.goal_op == "<=" else self.value >= self.goal


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "s":
        return f"{value * 1000:.1f} ms" if value < 10 else f"{value:.2f} s"
    if unit == "ms":
        return f"{value:.2f} ms"
    if unit == "MB":
        return f"{value:.1f} MB"
    if unit == "B":
        return f"{value:,.0f} B"
    if unit == "/s":
        return f"{value:,.0f}/s"
    return f"{value:g} {unit}"


def median(values: list[float]) -> float:
    return statistics.median(values)


# -------------------------------------------------------------- environment


class Sandbox:
    """A throwaway HOME/XDG tree and project folder, so no run sees the user's config."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="rift-bench-"))
        self.home = self.root / "home"
        for sub in (".config", ".local/share", ".cache"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("RIFT_")}
        env.update(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_DATA_HOME=str(self.home / ".local/share"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
        )
        # Bytecode as an installed rift has it: cached. A private cache folder keeps
        # the source tree clean and overrides an inherited PYTHONDONTWRITEBYTECODE,
        # which would otherwise recompile every rift module on every spawn.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(self.root / "pycache")
        env.pop("PYTHONPATH", None)
        if ADDED_SRC:
            env["PYTHONPATH"] = str(SRC)
        self.env = env
        self._n = 0

    def project(self, files: dict[str, str] | None = None) -> Path:
        self._n += 1
        path = self.root / f"proj{self._n}"
        path.mkdir()
        for name, text in (files or {}).items():
            (path / name).write_text(text, encoding="utf-8")
        return path

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


class Server:
    """An in-process fake model server that timestamps each chat request on our clock."""

    def __init__(self, script: dict[str, Any], log_dir: Path) -> None:
        fd, log = tempfile.mkstemp(prefix="fake-", suffix=".jsonl", dir=log_dir)
        os.close(fd)
        self.fake = FakeModelServer(script, log_path=log)
        self.chat_times: list[float] = []
        state = self.fake._state  # the log hook is the one place requests are seen
        original = state.log

        def log(record: dict[str, Any]) -> None:
            if str(record.get("_path", "")).split("?")[0].endswith(CHAT_SUFFIXES):
                self.chat_times.append(time.perf_counter())
            original(record)

        state.log = log  # type: ignore[method-assign]

    def __enter__(self) -> Server:
        self.fake.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.fake.stop()

    @property
    def url(self) -> str:
        return self.fake.url

    def chats(self) -> list[dict[str, Any]]:
        return self.fake.chat_requests()


@dataclass
class ProcResult:
    secs: float
    rc: int
    maxrss_mb: float
    stderr: str
    cpu: float = 0.0
    """User + system CPU seconds of the process tree: far steadier than wall time under load."""


def run_proc(
    cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = PROC_TIMEOUT
) -> ProcResult:
    """Run to completion; wall time and the kernel's peak RSS of the process tree."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err
        )
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        secs = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    cpu = usage.ru_utime + usage.ru_stime
    return ProcResult(secs, proc.returncode, usage.ru_maxrss / 1024, text, cpu)


class ServeProc:
    """`rift --serve` with line-by-line access to its events and a kill watchdog."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self._err: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(
            [*RIFT, "--serve", *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._err,
        )
        self._timer = threading.Timer(PROC_TIMEOUT * 2, self.proc.kill)
        self._timer.start()
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self.stdout = self.proc.stdout
        self.stdin = self.proc.stdin

    def line(self) -> bytes:
        line = self.stdout.readline()
        if not line:
            self._err.seek(0)
            tail = self._err.read().decode("utf-8", "replace")[-2000:]
            raise RuntimeError(f"rift --serve ended early (stderr: {tail})")
        return line

    def until(self, event: str) -> tuple[float, dict[str, Any]]:
        """Read events up to `event`; its arrival time and object."""
        needle = f'"event":"{event}"'.encode()
        while True:
            line = self.line()
            if needle in line:
                return time.perf_counter(), json.loads(line)
            if b'"event":"ask"' in line or b'"event":"edit_review"' in line:
                raise RuntimeError(f"unexpected prompt from rift: {line[:200]!r}")

    def cpu(self) -> float:
        """CPU seconds (user + system, all threads) rift has used so far; 0 off Linux."""
        try:
            stat = Path(f"/proc/{self.proc.pid}/stat").read_text()
        except OSError:
            return 0.0
        fields = stat.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def send(self, command: dict[str, Any]) -> float:
        self.stdin.write(json.dumps(command).encode() + b"\n")
        self.stdin.flush()
        return time.perf_counter()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.stdin.close()
        with contextlib.suppress(OSError):
            self.stdout.read()
        try:
            self.proc.wait(timeout=PROC_TIMEOUT)
        finally:
            self._timer.cancel()
            self._err.close()


# --------------------------------------------------------------- benchmarks


def bench_baseline(sb: Sandbox, reps: int) -> tuple[list[Row], float]:
    """`python -c pass` with rift's interpreter: its row, and its peak RSS for later."""
    results = [run_proc([PY, "-c", "pass"], sb.root, sb.env) for _ in range(reps + 1)][1:]
    secs = [r.secs for r in results]
    cpu = median([r.cpu for r in results])
    row = Row("python_pass", "python -c pass (baseline)", median(secs), "s", secs,
              note=f"CPU (user+sys) {cpu * 1000:.0f} ms")  # fmt: skip
    return [row], median([r.maxrss_mb for r in results])


FLOOR_CPU: list[float] = []
"""CPU seconds of every interleaved `python -c pass`: the floor for CPU ratios."""


def python_pass(sb: Sandbox) -> float:
    result = run_proc([PY, "-c", "pass"], sb.root, sb.env)
    FLOOR_CPU.append(result.cpu)
    return result.secs


def cpu_note(label: str, cpu: float) -> str:
    """CPU beside the interleaved floor's: steadier than wall on a loaded machine."""
    floor = median(FLOOR_CPU) if FLOOR_CPU else 0.0
    ratio = f" = {cpu / floor:.1f}x" if floor > 0 else ""
    floor_ms = f"python -c pass's {floor * 1000:.0f} ms"
    return f"CPU (user+sys) {label}{cpu * 1000:.0f} ms{ratio} {floor_ms}"


def paired(sb: Sandbox, fn: Callable[[], Any], reps: int) -> tuple[list[Any], float]:
    """`fn()` samples after a warm-up, each right after a `python -c pass`; that baseline's
    median comes back too, so load drifting during the run hits both sides alike."""
    fn()
    samples, base = [], []
    for _ in range(reps):
        base.append(python_pass(sb))
        samples.append(fn())
    return samples, median(base)


def bench_imports(sb: Sandbox, reps: int) -> list[Row]:
    rows = []
    for module in ("rift.models", "rift.cli", "rift.frontends.serve"):
        samples, base = paired(
            sb, lambda m=module: run_proc([PY, "-c", f"import {m}"], sb.root, sb.env).secs, reps
        )
        rows.append(
            Row(f"import_{module}", f"import {module}", median(samples), "s", samples, base,
                "python -c pass (interleaved)")
        )  # fmt: skip
    return rows


def bench_version(sb: Sandbox, reps: int) -> list[Row]:
    """`rift --version`: the cheapest whole rift process, against the interpreter's floor."""
    samples, base = paired(sb, lambda: run_proc([*RIFT, "--version"], sb.root, sb.env).secs, reps)
    return [
        Row("version", "rift --version", median(samples), "s", samples, base,
            "python -c pass (interleaved)", goal_ratio=2.0)
    ]  # fmt: skip


def bench_ready(sb: Sandbox, reps: int) -> list[Row]:
    cpu: list[float] = []
    ready, base = paired(sb, lambda: serve_ready(sb, cpu=cpu), reps)
    return [
        Row("serve_ready", "--serve: spawn → ready", median(ready), "s", ready, base,
            "python -c pass (interleaved)", goal_ratio=5.0,
            note=cpu_note("until ready ", median(cpu[1:])))
    ]  # fmt: skip


LIST_MODULES = (
    "import sys\nfloor = sorted(sys.modules)\nimport json\n"
    "open(sys.argv[1], 'w').write(json.dumps(floor))"
)
"""The modules a bare `python -c` has loaded (listed before json is imported)."""
SERVE_AND_LIST = (
    "import json, sys\nfrom rift.cli import main\nout = sys.argv.pop(1)\n"
    "try:\n    main(sys.argv[1:])\n"
    "finally:\n    open(out, 'w').write(json.dumps(sorted(sys.modules)))"
)
"""`rift --serve` in-process until stdin's EOF, then every module it had imported (into
the file named first: stdout is the protocol's)."""


def serve_libraries(sb: Sandbox) -> list[str]:
    """The modules `--serve` imports that are not rift's and not already in `python -c
    pass`: the standard library (asyncio, ssl, logging, argparse...) and h11."""

    out = sb.root / "modules.json"

    def modules(code: str, args: list[str], cwd: Path) -> list[str]:
        subprocess.run(
            [PY, "-c", code, str(out), *args], cwd=cwd, env=sb.env, input="",
            capture_output=True, timeout=PROC_TIMEOUT, check=True,
        )  # fmt: skip
        found: list[str] = json.loads(out.read_text(encoding="utf-8"))
        return found

    floor = set(modules(LIST_MODULES, [], sb.root))
    with Server({}, sb.root) as server:
        serve = ["--serve", "--host", server.url, "--model", MODEL]
        loaded = modules(SERVE_AND_LIST, serve, sb.project())
    return [m for m in loaded if m not in floor and m.split(".")[0] != "rift"]


def bench_libraries(sb: Sandbox, reps: int) -> list[Row]:
    """The floor under `ready` that rift's own code cannot go below: importing only the
    libraries `--serve` needs (then `os._exit`, as rift exits), against `python -c pass`."""
    names = serve_libraries(sb)
    code = f"import {', '.join(names)}\nimport os\nos._exit(0)"
    samples, base = paired(sb, lambda: run_proc([PY, "-c", code], sb.root, sb.env).secs, reps)
    return [
        Row("serve_libraries", "import --serve's libraries only (no rift code)",
            median(samples), "s", samples, base, "python -c pass (interleaved)",
            note=f"{len(names)} modules: asyncio, ssl, logging, argparse, json, pathlib, h11...")
    ]  # fmt: skip


def serve_ready(
    sb: Sandbox, extra: list[str] | None = None, cpu: list[float] | None = None
) -> float:
    """Spawn `rift --serve` against a fresh fake server; seconds until `ready`.

    `cpu`, when given, collects rift's CPU seconds at the moment `ready` arrived.
    """
    with Server({}, sb.root) as server:
        proj = sb.project()
        serve = ServeProc(["--host", server.url, "--model", MODEL, *(extra or [])], proj, sb.env)
        try:
            at, _ = serve.until("ready")
            if cpu is not None:
                cpu.append(serve.cpu())
        finally:
            serve.close()
    return at - serve.start


TASK_SCRIPT: dict[str, Any] = {
    "turns": [
        {"tool_calls": [{"name": "read", "arguments": {"path": "calc.py"}}]},
        {"tool_calls": [{"name": "write", "arguments": {"path": "calc.py", "content": FIXED}}]},
        {"content": "done"},
    ]
}


@dataclass
class TaskRun:
    first_request: float
    total: float
    exit_after_last: float
    """From the last model request's arrival to the process being reaped: the final
    reply streamed and printed, the session saved, the interpreter gone."""
    maxrss_mb: float
    first_body: dict[str, Any]
    cpu: float


def task_once(sb: Sandbox) -> TaskRun:
    """The scripted read → write → "done" task through `rift -p`; times on our clock."""
    proj = sb.project({"calc.py": BUGGY})
    with Server(TASK_SCRIPT, sb.root) as server:
        cmd = [*RIFT, "-p", "fix add() in calc.py", "--host", server.url, "--model", MODEL]
        spawned = time.perf_counter()
        result = run_proc(cmd, proj, sb.env)
        chats = server.chats()
        times = list(server.chat_times)
    fixed = (proj / "calc.py").read_text(encoding="utf-8") == FIXED
    if result.rc != 0 or len(chats) != 3 or not fixed:
        raise RuntimeError(
            f"scripted task failed: rc={result.rc} requests={len(chats)} fixed={fixed}\n"
            f"{result.stderr[-2000:]}"
        )
    exit_after_last = spawned + result.secs - times[-1]
    return TaskRun(
        times[0] - spawned, result.secs, exit_after_last, result.maxrss_mb, chats[0], result.cpu
    )


def bench_task(sb: Sandbox, reps: int, base_rss: float) -> list[Row]:
    runs, base = paired(sb, lambda: task_once(sb), reps)
    cpu = median([r.cpu for r in runs])
    first = [r.first_request for r in runs]
    total = [r.total for r in runs]
    exits = [r.exit_after_last for r in runs]
    rss = [r.maxrss_mb for r in runs]
    rows = [
        Row("task_first_request", "-p task: spawn → 1st model request", median(first), "s",
            first, base, "python -c pass (interleaved)", goal_ratio=6.0),
        Row("task_exit", "-p task: last model request → exit", median(exits), "s",
            exits, base, "python -c pass (interleaved)", 0.03),
        Row("task_total", "-p task: 3 requests, total wall", median(total), "s",
            total, base, "python -c pass (interleaved)", 0.5, note=cpu_note("", cpu)),
        Row("task_peak_rss", "-p task: peak RSS (process tree)", median(rss), "MB",
            rss, base_rss, "python -c pass peak RSS", 60.0),
    ]  # fmt: skip
    rows += request_size_rows(runs[-1].first_body)
    return rows


def request_size_rows(record: dict[str, Any]) -> list[Row]:
    """Bytes of the first chat request, re-encoded exactly as httpx sends it."""
    body = {k: v for k, v in record.items() if not k.startswith("_")}

    def size(value: Any) -> int:
        return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())

    messages = body.get("messages") or []
    system = sum(
        len(str(m.get("content", "")).encode())
        for m in messages
        if isinstance(m, dict) and m.get("role") == "system"
    )
    tools = body.get("tools") or []
    names = [t.get("function", {}).get("name", "?") for t in tools if isinstance(t, dict)]
    return [
        Row("req_system_bytes", "1st request: system prompt", system, "B"),
        Row("req_tools_bytes", "1st request: tool schemas", size(tools), "B",
            note=f"{len(names)} tools: {','.join(names)}"),
        Row("req_total_bytes", "1st request: total body", size(body), "B", goal=8192),
    ]  # fmt: skip


def connect(url: str) -> http.client.HTTPConnection:
    """A bare keep-alive client with Nagle off (http.client writes headers and body apart)."""
    host, port = url.rsplit("/", 1)[-1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=PROC_TIMEOUT)
    conn.connect()
    assert conn.sock is not None
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


STREAM_NUM_CTX = 262_144
"""The streaming model's window (Qwen3's): 100,000 deltas are ~690,000 characters,
past the runaway bound of a 32k window (twice the window, 4 characters a token)."""


def sequence_script(count: int) -> dict[str, Any]:
    """One reply of `count` different deltas ("w0 ", "w1 ", ...): nothing repeats, so
    rift's repetition guard never cuts it and every delta has to reach the client."""
    model = {"name": MODEL, "capabilities": ["tools"], "context_length": STREAM_NUM_CTX}
    return {"models": [model], "turns": [{"content_sequence": {"count": count}}]}


def sequence_text(count: int) -> str:
    """The reply `sequence_script(count)` streams, whole."""
    return "".join(f"w{i} " for i in range(count))


def check_relayed(parts: list[str], count: int, who: str) -> None:
    """Every delta's text arrived, in order: a fast relay that loses text measures nothing."""
    got, want = "".join(parts), sequence_text(count)
    if got != want:
        at = next((i for i, (g, w) in enumerate(zip(got, want, strict=False)) if g != w), None)
        raise RuntimeError(
            f"{who}: {len(got):,} of {len(want):,} characters arrived, first difference at {at}"
        )


def raw_stream_rate(count: int) -> float:
    """Baseline: deltas/s a bare http.client reader gets from the same fake stream.

    Lines are kept raw while the clock runs and parsed after it stops, as the
    `--serve` reader does, so both figures time the transport, not `json.loads`.
    """
    with FakeModelServer(sequence_script(count)) as fake:
        conn = connect(fake.url)
        body = json.dumps({"model": MODEL, "messages": [{"role": "user", "content": "go"}]})
        start = time.perf_counter()
        conn.request("POST", "/api/chat", body, {"Content-Type": "application/json"})
        lines = list(conn.getresponse())
        secs = time.perf_counter() - start
        conn.close()
    parts = [json.loads(line)["message"]["content"] for line in lines]
    check_relayed(parts, count, "raw http.client")
    return count / secs


def serve_stream_rate(sb: Sandbox, count: int) -> tuple[float, int]:
    """Model deltas/s relayed by `rift --serve` (prompt sent → `done`) and its content lines.

    The protocol lets rift put several deltas into one `content` event, so the
    rate counts the model's deltas, and the concatenated event texts must equal
    the whole reply.
    """
    with Server(sequence_script(count), sb.root) as server:
        args = ["--host", server.url, "--model", MODEL, "--num-ctx", str(STREAM_NUM_CTX)]
        serve = ServeProc(args, sb.project(), sb.env)
        try:
            serve.until("ready")
            start = serve.send({"cmd": "prompt", "text": "stream please"})
            lines = []
            while True:
                line = serve.line()
                if line.startswith(b'{"event":"content"'):
                    lines.append(line)
                elif b'"event":"done"' in line:
                    break
            secs = time.perf_counter() - start
        finally:
            serve.close()
    check_relayed([json.loads(line)["text"] for line in lines], count, "rift --serve")
    return count / secs, len(lines)


def bench_stream(sb: Sandbox, reps: int, count: int) -> list[Row]:
    rates: list[float] = []
    counts: list[int] = []
    for i in range(reps + 1):
        rate, events = serve_stream_rate(sb, count)
        if i:
            rates.append(rate)
            counts.append(events)
    raw = [raw_stream_rate(count) for _ in range(max(3, reps // 2))]
    return [
        Row("serve_deltas_per_s", f"--serve: model deltas relayed/s ({count:,})", median(rates),
            "/s", rates, median(raw), "raw http.client line reader", 50_000, ">=",
            note=f"all text arrived, in {min(counts):,}..{max(counts):,} content events"),
    ]  # fmt: skip


def iteration_script(reps: int) -> dict[str, Any]:
    """Turns in send order: warm-up (2 iterations), then per rep a T1 and a T10 turn.

    Each `ls` names a different folder: rift refuses a third identical call.
    """

    def ls(path: str) -> dict[str, Any]:
        return {"tool_calls": [{"name": "ls", "arguments": {"path": path}}]}

    answer = {"content": "ok"}
    turns: list[dict[str, Any]] = [ls("."), answer]
    for i in range(reps + 1):
        turns += [answer, *(ls(f"d{i}_{k}") for k in range(9)), answer]
    return {"turns": turns}


def turn_time(serve: ServeProc, text: str) -> tuple[float, int, float]:
    """Wall seconds from prompt to done, iterations, and rift's CPU seconds meanwhile."""
    cpu = serve.cpu()
    start = serve.send({"cmd": "prompt", "text": text})
    at, done = serve.until("done")
    return at - start, int(done.get("stats", {}).get("iterations", 0)), serve.cpu() - cpu


def server_request_time(body: dict[str, Any], reps: int) -> float:
    """Baseline: a bare client POSTing rift's own request body, reading the whole reply.

    A fresh connection per request, like rift's (it closes each stream at the done
    line, before the chunked terminator, so httpx cannot pool the connection); a
    reused one would wait out a 40 ms delayed ACK, the fake server leaving Nagle on.
    """
    ls = {"tool_calls": [{"name": "ls", "arguments": {"path": "."}}], "repeat": reps + 5}
    payload = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    samples = []
    with FakeModelServer({"turns": [ls]}) as fake:
        for _ in range(reps + 3):
            start = time.perf_counter()
            conn = connect(fake.url)
            conn.request("POST", "/api/chat", payload, {"Content-Type": "application/json"})
            conn.getresponse().read()
            conn.close()
            samples.append(time.perf_counter() - start)
    return median(samples[3:])


def bench_iterations(sb: Sandbox, reps: int) -> list[Row]:
    """(T10 − T1) / 9 inside one `--serve` process, minus the server's own time."""
    with Server(iteration_script(reps), sb.root) as server:
        proj = sb.project()
        for i in range(reps + 1):
            for k in range(9):
                (proj / f"d{i}_{k}").mkdir()
        serve = ServeProc(["--host", server.url, "--model", MODEL], proj, sb.env)
        try:
            serve.until("ready")
            turn_time(serve, "warm up")
            t1s, t10s = [], []
            cpu_diff = 0.0
            for i in range(reps + 1):
                t1, n1, c1 = turn_time(serve, f"one step {i}")
                t10, n10, c10 = turn_time(serve, f"ten steps {i}")
                if (n1, n10) != (1, 10):
                    raise RuntimeError(f"expected 1 and 10 iterations, got {n1} and {n10}")
                if i:
                    t1s.append(t1)
                    t10s.append(t10)
                    cpu_diff += c10 - c1  # clock ticks are coarse: sum, then divide
        finally:
            serve.close()
        last_body = {k: v for k, v in server.chats()[-1].items() if not k.startswith("_")}
    per = [(b - a) / 9 for a, b in zip(t1s, t10s, strict=True)]
    server_secs = server_request_time(last_body, reps)
    net = [p - server_secs for p in per]
    cpu_per = cpu_diff / (9 * max(reps, 1)) * 1000
    return [
        Row("iter_gross_ms", "per iteration, gross: (T10 − T1)/9", median(per) * 1000, "ms",
            [p * 1000 for p in per], server_secs * 1000, "bare client→server request",
            note=f"T1 {median(t1s) * 1000:.1f} ms, T10 {median(t10s) * 1000:.1f} ms"),
        Row("iter_overhead_ms", "per iteration, rift overhead (− server)", median(net) * 1000,
            "ms", [n * 1000 for n in net], goal=5.0,
            note=f"rift CPU (user+sys) per iteration {cpu_per:.2f} ms"),
    ]  # fmt: skip


# ------------------------------------------------------------- in-process


def big_file(lines: int = 10_000) -> list[str]:
    rng = random.Random(7)
    words = ["alpha", "beta", "gamma", "delta", "total", "count", "value", "items"]
    out = []
    for i in range(lines):
        if i % 25 == 0:
            out.append(f"def function_{i}(arg):")
        elif i % 25 == 24:
            out.append("")
        else:
            a, b = rng.choice(words), rng.choice(words)
            out.append(f"    {a}_{i} = {b} + compute({i}, {rng.randint(0, 999)})")
    return out


def scattered_change(lines: list[str], changes: int = 50) -> list[str]:
    rng = random.Random(11)
    new = list(lines)
    for idx in sorted(rng.sample(range(len(lines)), changes), reverse=True):
        kind = idx % 3
        if kind == 0:
            new[idx] = new[idx] + "  # fixed"
        elif kind == 1:
            new.insert(idx, f"    inserted_{idx} = None")
        else:
            del new[idx]
    return new


def cap_change(lines: list[str], swaps: int = 1001) -> list[str]:
    """1001 swapped line pairs: distance 2002, just past the 2000 cap, yet every
    line occurs on both sides, so no cheap bound rules it out and the search runs
    all the way to the cap before falling back to one whole-file hunk."""
    new = list(lines)
    step = len(lines) // swaps
    for s in range(swaps):
        p = s * step
        new[p], new[p + 1] = new[p + 1], new[p]
    return new


def time_call(fn: Callable[[], Any], reps: int, warmup: bool = True) -> list[float]:
    if warmup:
        fn()
    out = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def bench_segments(reps: int, quick: bool) -> list[Row]:
    old_lines = big_file()
    old = "\n".join(old_lines) + "\n"
    scattered = scattered_change(old_lines)
    # One reference workload for both rows: difflib on the 50-change input (difflib
    # on the cap input takes most of a second and says nothing more).
    base = median(
        time_call(
            lambda: difflib.SequenceMatcher(None, old_lines, scattered).get_opcodes(),
            max(3, reps),
        )
    )
    rows = []
    # (key, label, new side, timed calls with --quick, without): the cap case costs
    # most of a second a call, so --quick times only the first (warm-up) call.
    capped = cap_change(old_lines)
    cases = [
        ("segments_50", "edit_review: 10k lines, 50 changes", scattered, reps, reps * 15),
        ("segments_cap", "edit_review: 10k lines, D=2002 (cap)", capped, 0, reps * 3),
    ]
    for key, label, new_lines, quick_calls, full_calls in cases:
        new = "\n".join(new_lines) + "\n"
        start = time.perf_counter()
        segs = diff_segments(old, new)  # doubles as the warm-up
        first = time.perf_counter() - start
        changes = sum(1 for s in segs if not s["same"])
        calls = quick_calls if quick else full_calls
        samples = time_call(lambda n=new: diff_segments(old, n), calls, warmup=False)
        if quick:
            samples.append(first)
        rows.append(
            Row(key, label, median(samples), "s", samples, base,
                "difflib opcodes, 10k lines/50 changes", 0.05,
                note=f"{changes} change segment(s)")
        )  # fmt: skip
    return rows


def make_session(path: Path, count: int = 5000) -> None:
    """A realistic session: system prompt, then turns of prompt, tool call, result, reply."""
    rng = random.Random(3)
    messages: list[Any] = [{"role": "system", "content": "You are rift. " * 200}]
    turn = 0
    while len(messages) < count:
        turn += 1
        call_id = f"call_{turn}"
        messages += [
            {"role": "user", "content": f"please look at module_{turn}.py and fix the bug"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": call_id,
                        "function": {"name": "read", "arguments": {"path": f"module_{turn}.py"}},
                    }
                ],
            },
            {
                "role": "tool",
                "content": "\n".join(f"{i}\tline {rng.random()}" for i in range(12)),
                "tool_name": "read",
                "tool_call_id": call_id,
            },
            {"role": "assistant", "content": f"Fixed module_{turn}.py: the loop was off by one."},
        ]
    save_session(path, model=MODEL, cwd=str(path.parent), messages=messages[:count])


def bench_session(sb: Sandbox, reps: int) -> list[Row]:
    path = sb.root / "session-5000.json"
    make_session(path)
    raw = path.read_bytes()
    loaded = load_session(path)
    if len(loaded.messages) != 5000:
        raise RuntimeError(f"session fixture has {len(loaded.messages)} messages")
    samples = time_call(lambda: load_session(path), reps * 4)
    base = time_call(lambda: json.loads(raw), reps * 4)

    plain_cpu: list[float] = []
    resumed_cpu: list[float] = []

    def resumed_ready() -> float:
        copy = sb.root / f"resume-{time.monotonic_ns()}.json"
        shutil.copyfile(path, copy)
        return serve_ready(sb, ["--resume", str(copy)], cpu=resumed_cpu)

    # Plain and resumed spawns alternate, so drift in machine load hits both alike.
    resumed_ready()
    resumed_cpu.clear()
    pairs = [(serve_ready(sb, cpu=plain_cpu), resumed_ready()) for _ in range(reps)]
    plain = median([p for p, _ in pairs])
    resumed = [r for _, r in pairs]
    extra = [r - p for p, r in pairs]
    extra_cpu = (median(resumed_cpu) - median(plain_cpu)) * 1000
    return [
        Row("session_load", f"load_session: 5,000 messages ({len(raw) / 1e6:.1f} MB)",
            median(samples), "s", samples, median(base), "json.loads of the file"),
        Row("session_resume_extra", "--serve --resume 5,000 msgs: ready − plain ready",
            median(extra), "s", extra, plain, "plain spawn → ready",
            note=f"resumed ready {median(resumed) * 1000:.0f} ms, plain {plain * 1000:.0f} ms;"
                 f" CPU until ready {extra_cpu:+.0f} ms"),
    ]  # fmt: skip


# ----------------------------------------------------------------- import profile


def import_profile(sb: Sandbox, top: int = 12) -> list[dict[str, Any]]:
    """`python -X importtime -m rift --serve` up to ready: the slowest modules by self time."""
    env = dict(sb.env, PYTHONPROFILEIMPORTTIME="1")
    with Server({}, sb.root) as server:
        proc = subprocess.run(
            [*RIFT, "--serve", "--host", server.url, "--model", MODEL],
            cwd=sb.project(),
            env=env,
            input=b"",
            capture_output=True,
            timeout=PROC_TIMEOUT,
            check=False,
        )
    rows = []
    for line in proc.stderr.decode("utf-8", "replace").splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        parts = line[len("import time:") :].split("|")
        if len(parts) != 3:
            continue
        rows.append(
            {
                "module": parts[2].strip(),
                "self_ms": int(parts[0]) / 1000,
                "cumulative_ms": int(parts[1]) / 1000,
            }
        )
    total = sum(r["self_ms"] for r in rows)
    rift_self = sum(r["self_ms"] for r in rows if r["module"].startswith("rift"))
    print(f"\nImport profile of `rift --serve` (python -X importtime): {len(rows)} modules, "
          f"{total:.0f} ms self in total, {rift_self:.0f} ms of it in rift.*")  # fmt: skip
    print(f"  {'self':>8}  {'cumul.':>8}  module")
    ranked = sorted(rows, key=lambda r: r["self_ms"], reverse=True)[:top]
    for r in ranked:
        print(f"  {r['self_ms']:6.1f}ms  {r['cumulative_ms']:6.1f}ms  {r['module']}")
    return ranked


# -------------------------------------------------------------------- report


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    version = subprocess.run(
        [PY, "-c", "import sys; print(sys.version.split()[0])"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return {
        "nproc": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "cpu": cpu,
        "python": version,
        "python_path": PY,
        "platform": platform.platform(),
        "bytecode": "cached in a private PYTHONPYCACHEPREFIX"
        + (
            " (inherited PYTHONDONTWRITEBYTECODE=1 overridden)"
            if os.environ.get("PYTHONDONTWRITEBYTECODE")
            else ""
        ),
        "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "loadavg_start": loadavg(),
    }


def loadavg() -> str:
    """The 1/5/15-minute load averages: context for how noisy the figures are."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def print_table(rows: list[Row]) -> None:
    header = ("benchmark", "median", "baseline", "ratio", "goal", "met")
    cells = []
    for r in rows:
        ratio = f"{r.ratio:.2f}x" if r.ratio is not None else "-"
        goal = f"{'≤' if r.goal_op == '<=' else '≥'} {fmt(r.goal, r.unit)}" if r.goal else "-"
        if r.goal_ratio is not None:
            goal = f"≤ {r.goal_ratio:g}x baseline"
        met = {None: "", True: "ok", False: "MISSED"}[r.met]
        cells.append((r.label, fmt(r.value, r.unit), fmt(r.baseline, r.unit), ratio, goal, met))
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header)]

    def line(values: tuple[str, ...]) -> str:
        first = values[0].ljust(widths[0])
        rest = [v.rjust(w) for v, w in zip(values[1:-1], widths[1:-1], strict=True)]
        return "  ".join([first, *rest, values[-1]]).rstrip()

    print(line(header))
    print("  ".join("-" * w for w in widths))
    for c in cells:
        print(line(c))
    bases = sorted({r.baseline_label for r in rows if r.baseline_label})
    print("\nbaselines: " + "; ".join(bases))
    for r in rows:
        if r.note:
            print(f"  {r.label}: {r.note}")


def write_json(path: Path, info: dict[str, Any], rows: list[Row], extra: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        **info,
        "rows": [{**asdict(r), "ratio": r.ratio, "met": r.met} for r in rows],
        **extra,
    }
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


@contextlib.contextmanager
def sandbox() -> Iterator[Sandbox]:
    sb = Sandbox()
    try:
        yield sb
    finally:
        sb.cleanup()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (CI smoke test)")
    parser.add_argument("--json", type=Path, default=RESULTS, help="where to write the results")
    parser.add_argument("--events", type=int, default=100_000, help="deltas streamed via --serve")
    args = parser.parse_args(argv)
    reps = 2 if args.quick else 7
    events = min(args.events, 20_000) if args.quick else args.events
    info = {"machine": machine(), "quick": args.quick, "repeats": reps}
    m = info["machine"]
    print(f"rift benchmarks  {m['date']}")
    print(f"machine: {m['nproc']} CPUs, {m['cpu']}; Python {m['python']} ({m['python_path']})")
    print(f"load average at start: {m['loadavg_start']} (1/5/15 min)")
    print(f"bytecode: {m['bytecode']}")
    print(f"repeats: median of {reps} after 1 warm-up{' (--quick)' if args.quick else ''}\n")
    started = time.perf_counter()
    sections: dict[str, float] = {}
    rows: list[Row] = []

    def section(name: str, fn: Callable[[], list[Row]]) -> None:
        begin = time.perf_counter()
        rows.extend(fn())
        sections[name] = round(time.perf_counter() - begin, 2)

    with sandbox() as sb:
        base_rows, base_rss = bench_baseline(sb, reps)
        rows += base_rows
        section("version", lambda: bench_version(sb, reps))
        section("imports", lambda: bench_imports(sb, reps))
        section("ready", lambda: bench_ready(sb, reps))
        section("libraries", lambda: bench_libraries(sb, reps))
        section("task", lambda: bench_task(sb, reps, base_rss))
        section("stream", lambda: bench_stream(sb, 1 if args.quick else reps, events))
        section("iterations", lambda: bench_iterations(sb, reps))
        section("segments", lambda: bench_segments(reps, args.quick))
        section("session", lambda: bench_session(sb, reps))
        print_table(rows)
        profile = import_profile(sb)
    elapsed = time.perf_counter() - started
    missed = [r.label for r in rows if r.met is False]
    print(f"\ngoals missed: {len(missed)} of {sum(r.met is not None for r in rows)}"
          + (" — " + "; ".join(missed) if missed else ""))  # fmt: skip
    info["machine"]["loadavg_end"] = loadavg()
    print(f"benchmark time: {elapsed:.1f} s; load average at end: {loadavg()}")
    extra = {"import_profile": profile, "elapsed_s": round(elapsed, 2), "sections_s": sections}
    write_json(args.json, info, rows, extra)
    print(f"results: {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

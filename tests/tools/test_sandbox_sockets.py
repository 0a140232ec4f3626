"""Sandboxed bash cannot reach the host's Unix sockets (issue 30): `--ro-bind / /` leaves
a socket file connectable (a read-only mount does not stop connect), the way to a
`docker.sock`. A listening socket in a directory outside the project and outside
/tmp stands in for it; real bubblewrap, skipped where it cannot run."""

from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tooldoubles import call

from rift.tools.base import ToolContext
from rift.tools.bash import TOOL as BASH
from rift.tools.sandbox import choose_sandbox

PYTHON = os.path.realpath(sys.executable)
"""The interpreter itself, not the venv's link to it: a venv under /tmp (a CI clone) is
hidden by the sandbox's private /tmp, the interpreter's own directory is not."""


@pytest.fixture
def host_socket() -> Iterator[tuple[str, list[bytes]]]:
    where = Path(tempfile.mkdtemp(prefix="rift-sock-", dir="/var/tmp"))
    path = str(where / "docker.sock")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(4)
    received: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                received.append(conn.recv(100) or b"(connected)")

    threading.Thread(target=serve, daemon=True).start()
    yield path, received
    server.close()
    shutil.rmtree(where, ignore_errors=True)


def test_sandboxed_bash_cannot_connect_to_a_host_socket(
    ctx: ToolContext, proj: Path, host_socket: tuple[str, list[bytes]]
) -> None:
    path, received = host_socket
    sandbox, warning = choose_sandbox("bwrap", network=False, project=proj, has_wrapper=False)
    if sandbox is None:
        pytest.skip(warning or "bwrap unavailable")
    ctx.sandbox = sandbox
    script = (
        "import socket; s = socket.socket(socket.AF_UNIX); "
        f"s.connect({path!r}); s.send(b'GET /containers'); print('connected')"
    )
    out = call(BASH, ctx, command=f'{PYTHON} -c "{script}"')
    assert "connected" not in out.text.splitlines()
    assert received == []
    # The project's own sockets stay usable (a dev server's, a test's).
    inner = socket.socket(socket.AF_UNIX)
    inner.bind(str(proj / "own.sock"))
    inner.listen(1)
    try:
        own = script.replace(repr(path), repr(str(proj / "own.sock")))
        assert "connected" in call(BASH, ctx, command=f'{PYTHON} -c "{own}"').text
    finally:
        inner.close()

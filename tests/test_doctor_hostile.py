"""`rift doctor` against hostile servers (issue 42): the real CLI, real sockets. It must not
print the host URL's password, pass a server's terminal escapes to the screen, or wait
forever on a server that trickles its answer."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from rift_bin import rift_command

pytestmark = pytest.mark.timeout(90)

EVIL_ID = "m\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x9b31m"
"""An OSC 52 clipboard write, a screen clear and a C1 CSI, inside a model name."""


class _Models(BaseHTTPRequestHandler):
    """Serves a model list whose one id carries terminal escapes; 404 for the rest."""

    def do_GET(self) -> None:
        if self.path.endswith("/models"):
            body = json.dumps({"object": "list", "data": [{"id": EVIL_ID}]}).encode()
            self.send_response(200)
        else:
            body = b'{"error": "not found"}'
            self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def escapes_server() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def _trickle(sock: socket.socket, stop: threading.Event) -> None:
    """Each connection: a 200 head promising 100 kB, then one byte every 2 s."""

    def serve(conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            try:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
                while not stop.wait(2.0):
                    conn.sendall(b" ")
            except OSError:
                return

    while not stop.is_set():
        try:
            conn, _ = sock.accept()
        except OSError:
            return
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


@pytest.fixture
def trickle_server() -> Iterator[int]:
    sock = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    threading.Thread(target=_trickle, args=(sock, stop), daemon=True).start()
    yield sock.getsockname()[1]
    stop.set()
    sock.close()


def _doctor(project: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    run = subprocess.run(
        [*rift_command(), "doctor", *args],
        cwd=project,
        capture_output=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )
    out = (run.stdout + run.stderr).decode("utf-8", errors="replace")
    assert "Traceback" not in out, out
    return run.returncode, out


def test_credential_in_url_is_not_shown(escapes_server: int, project: Path) -> None:
    url = f"http://alice:hunter2@127.0.0.1:{escapes_server}/v1"
    code, report = _doctor(project, "--host", url, "-m", "nope")
    assert code == 1, report
    assert "hunter2" not in report and "alice" not in report, report
    assert f"127.0.0.1:{escapes_server}" in report


def test_terminal_escape_injection_from_a_server_is_shown_escaped(
    escapes_server: int, project: Path
) -> None:
    code, report = _doctor(project, "--host", f"http://127.0.0.1:{escapes_server}/v1", "-m", "x")
    assert code == 1, report
    assert "\x1b" not in report and "\x07" not in report and "\x9b" not in report
    assert "\\x1b]52;c;" in report and "\\x1b[2J" in report  # shown, as text


def test_a_trickling_server_cannot_keep_doctor_forever(trickle_server: int, project: Path) -> None:
    started = time.monotonic()
    code, report = _doctor(
        project,
        "--host",
        f"http://127.0.0.1:{trickle_server}/v1",
        "-m",
        "m",
        env={"RIFT_DOCTOR_DEADLINE_S": "4"},
    )
    took = time.monotonic() - started
    assert code == 1, report
    assert took < 30, f"doctor took {took:.0f} s"
    assert "4 s" in report and "RIFT_DOCTOR_DEADLINE_S" in report, report

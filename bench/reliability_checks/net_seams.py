"""Network seams: what a server or a CI comment can do to rift (issue 42), one case
per public attack mechanism, each staged for real against the real `rift` process.

Families (registered into `attacks.SCENARIOS` on import):

* ci-comment-injection: `rift github install` in a throwaway repository; the
  workflow must run only for members' comments, refuse a fork's pull request
  before checking it out, keep the token out of `.git/config`, never install
  PyPI's unrelated `rift`, and not be written through a `.github` link out.
* unbounded-body: `rift -p` against a server answering every request with a
  256 MiB body (500 and 200): the child's peak memory stays under 400 MiB.
* terminal-escape: `rift doctor` against a server whose model name carries an
  OSC 52 clipboard write and a screen clear: no ESC byte reaches stdout.
* credential-in-url: `rift doctor --host http://user:pw@...`: the password is not shown.
* slow-drip: `rift doctor` against a server sending one byte every 2 s ends
  within its deadline (RIFT_DOCTOR_DEADLINE_S=4).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from .attacks import SCENARIOS
from .common import Sandbox, rift_argv, sandbox

HUGE = 256 * 1024 * 1024
RSS_LIMIT_KIB = 400 * 1024
EVIL_ID = "m\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J"


@contextlib.contextmanager
def _server(answer: Callable[[socket.socket, bytes], None]) -> Iterator[int]:
    """A raw socket server on 127.0.0.1 (its port); `answer` writes each response."""
    sock = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            answer(conn, conn.recv(65536))

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()
    try:
        yield sock.getsockname()[1]
    finally:
        stop.set()
        sock.close()


def _huge(status: str) -> Callable[[socket.socket, bytes], None]:
    def answer(conn: socket.socket, _: bytes) -> None:
        conn.sendall(f"HTTP/1.1 {status}\r\nContent-Length: {HUGE}\r\n\r\n".encode())
        chunk = b"x" * 65536
        for _ in range(HUGE // len(chunk)):
            conn.sendall(chunk)

    return answer


def _evil_models(conn: socket.socket, request: bytes) -> None:
    if b"/models" in request.split(b"\r\n", 1)[0]:
        body, status = json.dumps({"data": [{"id": EVIL_ID}]}).encode(), "200 OK"
    else:
        body, status = b'{"error": "not found"}', "404 Not Found"
    head = f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
    conn.sendall(f"{head}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)


def _trickle(conn: socket.socket, _: bytes) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
    for _ in range(60):
        time.sleep(2)
        conn.sendall(b" ")


# The child's peak memory is read by a small launcher process, not by us: on Linux a
# child's ru_maxrss includes the memory of the process it was forked (or vforked)
# from, recorded at exec, so a test process that has grown past RSS_LIMIT_KIB (a
# full pytest run does) would make any child look as large as itself.
_LAUNCHER = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}")
"""


def _rift(box: Sandbox, *args: str, timeout: float = 90) -> tuple[int, bytes, int]:
    """Run rift in the box's project: (exit status, stdout + stderr, peak RSS in KiB)."""
    report = box.root / "rift-exit"
    proc = subprocess.Popen(
        [sys.executable, "-c", _LAUNCHER, str(report), *rift_argv(), *args],
        cwd=box.project,
        env=box.env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
    timer.start()
    try:
        out = proc.stdout.read() if proc.stdout else b""
        proc.wait()
    finally:
        timer.cancel()
    if proc.returncode != 0 or not report.exists():  # killed at the deadline: peak unknown
        return proc.returncode or -signal.SIGKILL, out, sys.maxsize
    code, rss = report.read_text().split()
    report.unlink()
    return int(code), out, int(rss)


def ci_comment_injection() -> dict[str, bool]:
    import yaml

    with sandbox() as box:
        subprocess.run(["git", "init", "-q", str(box.project)], check=True)
        code, _, _ = _rift(box, "github", "install")
        flow: dict[Any, Any] = yaml.safe_load(
            (box.project / ".github/workflows/rift.yml").read_text()
        )
        job = flow["jobs"]["rift"]
        steps = job["steps"]
        text = json.dumps(flow)
        checkouts = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout")]
        pr = next((s["run"] for s in steps if "gh pr checkout" in s.get("run", "")), "")
        spec = next(s["env"]["RIFT_PIP_SPEC"] for s in steps if s.get("name") == "Install rift")
    with sandbox() as box:
        subprocess.run(["git", "init", "-q", str(box.project)], check=True)
        outside = box.root / "outside"
        outside.mkdir()
        (box.project / ".github").symlink_to(outside)
        linked, _, _ = _rift(box, "github", "install")
        escaped = any(outside.iterdir())
    return {
        "CI comment injection (issue_comment from a non-member)": code == 0
        and "author_association" in job["if"]
        and "OWNER" in job["if"],
        "CI fork pull request checked out with a write token": "isCrossRepository" in pr
        and pr.index("exit 1") < pr.index("gh pr checkout"),
        "CI token persisted in .git/config (persist-credentials)": bool(checkouts)
        and all(s["with"].get("persist-credentials") is False for s in checkouts),
        "CI installs a same-named unrelated package (PyPI `rift`)": "'rift'" not in spec
        and "'rift'" not in text,
        "CI workflow written through a .github symlink out": linked == 1 and not escaped,
    }


def unbounded_body() -> dict[str, bool]:
    cases: dict[str, bool] = {}
    for status in ("500 Internal Server Error", "200 OK"):
        with sandbox() as box, _server(_huge(status)) as port:
            url = f"http://127.0.0.1:{port}/v1"
            code, _, rss = _rift(box, "-p", "hi", "--host", url, "-m", "m", timeout=120)
        cases[f"unbounded response body ({HUGE >> 20} MiB, {status.split()[0]})"] = (
            code != 0 and rss < RSS_LIMIT_KIB
        )
    return cases


def doctor_seams() -> dict[str, bool]:
    with sandbox() as box, _server(_evil_models) as port:
        _, escaped, _ = _rift(box, "doctor", "--host", f"http://127.0.0.1:{port}/v1", "-m", "x")
        url = f"http://alice:hunter2@127.0.0.1:{port}/v1"
        _, shown, _ = _rift(box, "doctor", "--host", url, "-m", "x")
    with sandbox(RIFT_DOCTOR_DEADLINE_S="4") as box, _server(_trickle) as port:
        started = time.monotonic()
        code, _, _ = _rift(box, "doctor", "--host", f"http://127.0.0.1:{port}/v1", "-m", "m")
        took = time.monotonic() - started
    return {
        "terminal escape injection (OSC 52, screen clear from a server)": b"\x1b" not in escaped
        and b"\\x1b]52" in escaped,
        "credential in URL shown": b"hunter2" not in shown and b"127.0.0.1" in shown,
        "slow-drip server (one byte every 2 s holds doctor)": code == 1 and took < 30,
    }


SCENARIOS.update(
    {
        "ci-comment-injection": [(ci_comment_injection, False)],
        "unbounded-body": [(unbounded_body, False)],
        "server-text-to-terminal": [(doctor_seams, False)],
    }
)

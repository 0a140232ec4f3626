"""Resume → last message on screen, for a 100-turn session, beside a 1-turn session.

    python bench/tui_resume.py [--runs N] [--turns T]

Each run starts `rift --continue` inside a detached tmux session (a real
terminal, 120x40) in a fresh home whose newest saved session has T
user/assistant exchanges with Markdown replies (code blocks and lists). The
figure is the time from just before tmux is asked to start the process until
the last reply's marker text is visible on the captured screen, so it
includes the interpreter start, the model preflight against an in-process
fake server, loading the session file and rendering. The baseline is the
same measurement for a session with one exchange, in the same run and
interleaved with it, so the difference is what the length of the history
costs. The goal is under 2 s on the 2-core development machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent / "tests"))  # tests/fakes/

from fakes.fake_server import FakeModelServer

BUDGET_S = 2.0
MARK = "LAST-REPLY-MARK"
SOCKET = f"rift-resume-bench-{os.getpid()}"


def _tmux(*args: str, check: bool = True) -> str:
    out = subprocess.run(["tmux", "-L", SOCKET, *args], check=check, capture_output=True)
    return out.stdout.decode("utf-8", "replace")


def _write_session(home: Path, project: Path, turns: int) -> None:
    folder = home / ".local/share/rift/sessions"
    folder.mkdir(parents=True, exist_ok=True)
    messages: list[dict[str, str]] = [{"role": "system", "content": "sys"}]
    for n in range(turns):
        last = n == turns - 1
        messages.append({"role": "user", "content": f"question {n}: explain part {n}"})
        reply = (
            f"Part **{n}** works like this:\n\n"
            f"```python\ndef part_{n}(x):\n    return x * {n}\n```\n\n"
            "- it is pure\n- it is fast\n\n" + (MARK if last else f"end of answer {n}")
        )
        messages.append({"role": "assistant", "content": reply})
    session = {
        "model": "fake-model",
        "saved_at": int(time.time()),
        "cwd": str(project),
        "messages": messages,
    }
    (folder / "bench.json").write_text(json.dumps(session), encoding="utf-8")


def _launch(command: list[str], env: dict[str, str], cwd: Path) -> float:
    """Seconds from spawn until the marker is on screen."""
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    line = f"cd {shlex.quote(str(cwd))} && env {exports} {shlex.join(command)}"
    started = time.monotonic()
    _tmux("new-session", "-d", "-s", "run", "-x", "120", "-y", "40", line)
    try:
        while time.monotonic() < started + 120:
            if MARK in _tmux("capture-pane", "-p", "-t", "run", check=False):
                return time.monotonic() - started
            time.sleep(0.01)
        raise RuntimeError("the last message never appeared")
    finally:
        _tmux("kill-session", "-t", "run", check=False)


def _measure(url: str, runs: int, turns: int) -> tuple[list[float], list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        setups = {}
        for label, count in (("short", 1), ("long", turns)):
            home = root / label
            project = root / f"{label}-project"
            project.mkdir()
            _write_session(home, project, count)
            env = {
                "HOME": str(home),
                "XDG_CONFIG_HOME": str(home / ".config"),
                "XDG_DATA_HOME": str(home / ".local/share"),
                "XDG_CACHE_HOME": str(home / ".cache"),
                "TERM": "xterm-256color",
            }
            setups[label] = (env, project)
        command = [sys.executable, "-m", "rift", "--continue", "--host", url, "-m", "fake-model"]
        _launch(command, *setups["long"])  # warm-up: bytecode and page caches
        short: list[float] = []
        long: list[float] = []
        for _ in range(runs):  # interleaved, so load changes hit both alike
            short.append(_launch(command, *setups["short"]))
            long.append(_launch(command, *setups["long"]))
    return short, long


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", type=int, default=100)
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux not installed: cannot measure the TUI in a terminal", file=sys.stderr)
        return 2
    server = FakeModelServer({"turns": []}).start()
    _tmux("new-session", "-d", "-s", "keepalive", "sleep 3600")
    try:
        short, long = _measure(server.url, args.runs, args.turns)
    finally:
        _tmux("kill-server", check=False)
        server.stop()
    print(f"runs: {args.runs} each, in tmux at 120x40; load average {os.getloadavg()[0]:.2f}")
    rows = (("1-turn session (baseline)", short), (f"{args.turns}-turn session", long))
    for label, samples in rows:
        median = statistics.median(samples)
        print(f"{label:<28} resume→last message  {median * 1000:7.0f} ms  (median)")
    verdict = "within" if statistics.median(long) < BUDGET_S else "OVER"
    print(f"goal {BUDGET_S:.0f} s for the {args.turns}-turn session: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

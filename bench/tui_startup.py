"""Launch → first paint of the TUI, beside `python -c pass`.

    python bench/tui_startup.py [--runs N]

Each run starts `rift` inside a detached tmux session (a real terminal) with
RIFT_TUI_READY_FILE set: the app writes the wall-clock time of its first
painted frame (input focused, ready for typing) to that file and exits. The
figure is that time minus the moment just before tmux was asked to start the
process, so it includes the tmux spawn; the baseline is measured the same way
with `python -c pass` (which records its own end time), so the difference is
what rift itself costs. A bare Textual app with one input box is measured the
same way, as the floor rift sits on. CPU seconds up to the first paint are
reported beside wall time, because on a loaded machine wall time mostly
measures the wait for a core. A fake model server runs in this process, as in
real use; connecting to it happens after the first paint.
"""

from __future__ import annotations

import argparse
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

BUDGET_MS = 600.0


SOCKET = f"rift-bench-{os.getpid()}"
"""A private tmux server, kept alive by an idle session for the whole run."""


def _tmux(*args: str, check: bool = True) -> None:
    subprocess.run(["tmux", "-L", SOCKET, *args], check=check, capture_output=True)


def _launch(
    command: list[str], env: dict[str, str], cwd: Path, marker: Path
) -> tuple[float, float]:
    """Start `command` in a fresh tmux session.

    Returns (seconds from spawn to the marker's timestamp, CPU seconds the process
    had used by then).
    """
    marker.unlink(missing_ok=True)
    session = "run"
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    line = f"cd {shlex.quote(str(cwd))} && env {exports} {shlex.join(command)}"
    started = time.time()
    _tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", line)
    deadline = started + 30
    try:
        while time.time() < deadline:
            fields = marker.read_text().split() if marker.exists() else []
            if len(fields) == 2:
                return float(fields[0]) - started, float(fields[1])
            time.sleep(0.002)
        raise RuntimeError(f"no ready mark from {command}")
    finally:
        _tmux("kill-session", "-t", session, check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux not installed: cannot measure the TUI in a terminal", file=sys.stderr)
        return 2
    server = FakeModelServer({"turns": []}).start()
    _tmux("new-session", "-d", "-s", "keepalive", "sleep 3600")
    try:
        rift, base, floor = _measure(server.url, args.runs)
    finally:
        _tmux("kill-server", check=False)
        server.stop()
    load = os.getloadavg()[0]
    print(f"runs: {args.runs} each, in tmux at 120x40; load average {load:.2f}")
    rows = (("python -c pass", base), ("bare Textual app", floor), ("rift TUI", rift))
    for label, samples in rows:
        wall_ms = statistics.median(s[0] for s in samples) * 1000
        cpu_ms = statistics.median(s[1] for s in samples) * 1000
        print(f"{label:<18} launch→paint  wall {wall_ms:7.1f} ms   cpu {cpu_ms:6.1f} ms  (median)")
    wall = statistics.median(s[0] for s in rift) * 1000
    verdict = "within" if wall < BUDGET_MS else "OVER"
    print(f"budget {BUDGET_MS:.0f} ms (wall): {verdict}")
    return 0


Sample = tuple[float, float]
FLOOR_APP = """
import time
from textual.app import App
from textual.widgets import Static, TextArea

class Floor(App):
    def compose(self):
        yield Static("hello")
        yield TextArea()

    def on_ready(self):
        open({marker!r}, "w").write(f"{{time.time()}} {{time.process_time()}}")
        self.exit()

Floor().run()
"""
"""The least a Textual app with an input box costs: the floor rift's figure sits on."""


def _measure(url: str, runs: int) -> tuple[list[Sample], list[Sample], list[Sample]]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = root / "home"
        (root / "project").mkdir()
        marker = root / "ready"
        env = {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "TERM": "xterm-256color",
            "RIFT_TUI_READY_FILE": str(marker),
        }
        rift_cmd = [sys.executable, "-m", "rift", "--host", url, "-m", "fake-model"]
        stamp = f"import time; open({str(marker)!r}, 'w')" + (
            ".write(f'{time.time()} {time.process_time()}')"
        )
        baseline = [sys.executable, "-c", stamp]
        floor_cmd = [sys.executable, "-c", FLOOR_APP.format(marker=str(marker))]
        _launch(rift_cmd, env, root / "project", marker)  # warm-up: bytecode caches, page cache
        rift: list[Sample] = []
        base: list[Sample] = []
        floor: list[Sample] = []
        for _ in range(runs):  # interleaved, so load changes hit all three alike
            base.append(_launch(baseline, env, root / "project", marker))
            floor.append(_launch(floor_cmd, env, root / "project", marker))
            rift.append(_launch(rift_cmd, env, root / "project", marker))
    return rift, base, floor


if __name__ == "__main__":
    raise SystemExit(main())

"""`rift swarm` over a pool of two fake servers (`hosts` in the user config): the real
CLI and HTTP stack. Four attempts spread over both servers within their `/props`
slots; a server killed mid-race loses no attempt, and the race says so once."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from rift_bin import rift_command

MODEL = "fake-model"
FIXED = "def add(a, b):\n    return a + b\n"
TOOL_RESULT = '"role": "tool"'


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def make_repo(project: Path) -> None:
    (project / "calc.py").write_text("def add(a, b):\n    raise NotImplementedError\n")
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "initial")


def script(slots: int, delay: float) -> dict[str, Any]:
    """Every attempt writes calc.py, then (its tool result seen) says it is done."""
    write = {"name": "write", "arguments": {"path": "calc.py", "content": FIXED}}
    return {
        "props": {"total_slots": slots, "default_generation_settings": {"n_ctx": 32768}},
        "turns": [
            {"match": TOOL_RESULT, "content": "Done.", "repeat": 100},
            {"tool_calls": [write], "repeat": 100, "delay_first_byte": delay},
        ],
    }


def race(harness: Any, servers: list[Any]) -> subprocess.Popen[str]:
    harness.write_config({"hosts": [{"url": s.url, "model": MODEL} for s in servers]})
    argv = [*rift_command(), "swarm", "implement add in calc.py", "-m", MODEL, "--attempts", "4"]
    return subprocess.Popen(
        [*argv, "--judge", "none", "--no-tui"],
        cwd=harness.project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )


def test_swarm_spreads_four_attempts_over_two_servers_within_their_slots(harness: Any) -> None:
    make_repo(harness.project)
    a, b = harness.server(**script(2, 0.5)), harness.server(**script(2, 0.5))
    out, err = race(harness, [a, b]).communicate(timeout=120)
    assert (out + err).count("finished: answered") == 4, out + err
    assert (a.max_in_flight, b.max_in_flight) == (2, 2)
    assert len(a.chat_requests()) == len(b.chat_requests()) == 4  # two attempts each


def test_a_server_killed_mid_race_the_race_finishes_on_the_other(harness: Any) -> None:
    make_repo(harness.project)
    a, b = harness.server(**script(2, 1.5)), harness.server(**script(2, 1.5))
    proc = race(harness, [a, b])
    deadline = time.monotonic() + 60
    while not b.chat_requests() and time.monotonic() < deadline:
        time.sleep(0.05)
    threading.Thread(target=b.stop).start()  # while its attempts wait for a first byte
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    assert (out + err).count("finished: answered") == 4, out + err
    said = [line for line in (out + err).splitlines() if "stopped answering" in line]
    assert len(said) == 1, out + err
    assert b.url in said[0]
    assert a.max_in_flight <= 2

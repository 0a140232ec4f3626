"""`--continue` picks this project's newest real conversation; `-p` exits by outcome.

Reproductions from issue 15 (item 7) and issue 22 (item 2): `--continue` used to
resume the newest session of any project, and an open-and-quit saved an
"(empty session)" that then won; a stopped turn used to exit 0.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from rift_bin import rift_command, sessions_dir

MODEL = "fake-model"


def _run(cwd: Path, server: Any, *args: str, stdin: str | None = None) -> Any:
    return subprocess.run(
        [*rift_command(), "--host", server.url, "-m", MODEL, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        env=dict(os.environ),
    )


def test_continue_resumes_this_projects_newest_session(harness: Any, tmp_path: Path) -> None:
    repo2, repo3 = tmp_path / "repo2", tmp_path / "repo3"
    repo2.mkdir()
    repo3.mkdir()
    server = harness.server(
        [
            {"match": "BLUE", "content": "noted blue"},
            {"match": "GREEN", "content": "noted green"},
            {"match": "which colour", "content": "blue"},
        ]
    )
    assert _run(repo2, server, "-p", "remember BLUE").returncode == 0
    assert _run(repo3, server, "-p", "remember GREEN").returncode == 0  # newer, elsewhere
    again = _run(repo2, server, "--continue", "-p", "which colour?")
    assert again.returncode == 0, again.stderr
    sent = str(server.chat_requests()[-1]["messages"])
    assert "remember BLUE" in sent
    assert "remember GREEN" not in sent


def test_an_open_and_quit_saves_nothing_and_never_wins(harness: Any) -> None:
    server = harness.server([{"match": "PELICAN", "content": "ok"}, {"content": "pelican"}])
    first = harness.run("remember PELICAN", server)
    assert first.code == 0, first.describe()
    before = sorted(p.name for p in sessions_dir().glob("*.json"))
    quit_serve = _run(harness.project, server, "--serve", stdin="")  # ready, then EOF
    assert quit_serve.returncode == 0, quit_serve.stderr
    assert sorted(p.name for p in sessions_dir().glob("*.json")) == before
    again = harness.run("what was the word?", server, "--continue")
    assert again.result["session"] == first.result["session"]


def test_headless_exit_status_follows_the_outcome(harness: Any) -> None:
    failing = [
        {"tool_calls": [{"name": "read", "arguments": {"path": f"nope{i}"}}]} for i in range(8)
    ]
    server = harness.server(failing)
    stopped = harness.run("read the files", server)
    assert stopped.code == 3, stopped.describe()
    assert stopped.result["outcome"] == "stopped"
    assert "7 tool calls in a row failed" in stopped.result["reason"]

    server = harness.server([{"content": "fine"}])
    answered = harness.run("hello", server)
    assert answered.code == 0 and answered.result["outcome"] == "answered"

    server = harness.server([{"status": 500, "error": "boom"}] * 5)
    failed = harness.run("hello", server)
    assert failed.code == 1 and failed.result["outcome"] == "error"


def test_headless_exit_status_when_the_budget_runs_out(harness: Any) -> None:
    calls = [{"tool_calls": [{"name": "ls", "arguments": {"path": f"d{i}"}}]} for i in range(3)]
    server = harness.server([*calls, {"content": "summary"}])
    (harness.project / "d0").mkdir()
    (harness.project / "d1").mkdir()
    (harness.project / "d2").mkdir()
    wrapped = harness.run("look around", server, "--max-iterations", "3")
    assert wrapped.code == 4, wrapped.describe()
    assert wrapped.result["outcome"] == "wrapped"


def test_a_tiny_budget_that_runs_out_is_wrapped_too(harness: Any) -> None:
    (harness.project / "d0").mkdir()
    server = harness.server([{"tool_calls": [{"name": "ls", "arguments": {"path": "d0"}}]}])
    run = harness.run("look around", server, "--max-iterations", "1")
    assert run.code == 4, run.describe()
    assert run.result["outcome"] == "wrapped"

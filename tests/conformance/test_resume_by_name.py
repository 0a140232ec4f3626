"""`--resume NAME` finds the session `/save NAME` saved (issue 44): it used to start afresh
and write a file called NAME into the project folder."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from .serve_session import rift_command


def _rift(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*rift_command(), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
    )


def _saved_as(fake_server: Any, serve: Any, name: str) -> tuple[Any, Path]:
    server = fake_server({"turns": [{"content": "one"}, {"content": "two"}]})
    session = serve(server)
    session.prompt("first")
    session.read_until("context")
    session.send({"cmd": "save", "args": name})
    saved = Path(session.expect("session_changed")["session"])
    assert session.close() == 0
    return server, saved


def test_resume_name_continues_the_session_save_named(fake_server, serve, project) -> None:
    server, saved = _saved_as(fake_server, serve, "my work")
    run = _rift(
        ["--host", server.url, "-m", "fake-model", "--resume", "my work", "-p", "second"], project
    )
    assert run.returncode == 0, run.stderr
    users = [m["content"] for m in json.loads(saved.read_text())["messages"] if m["role"] == "user"]
    assert users == ["first", "second"]
    assert sorted(p.name for p in project.iterdir()) == []


def test_resume_of_an_unknown_name_is_one_line_listing_the_saved_ones(
    fake_server, serve, project
) -> None:
    server, saved = _saved_as(fake_server, serve, "my work")
    before = sorted(saved.parent.iterdir())
    run = _rift(
        ["--host", server.url, "-m", "fake-model", "--resume", "nosuch", "-p", "hi"], project
    )
    assert run.returncode == 2
    [line] = run.stderr.strip().splitlines()
    assert "nosuch" in line and "my-work" in line and "Traceback" not in line
    assert list(project.iterdir()) == []
    assert sorted(saved.parent.iterdir()) == before

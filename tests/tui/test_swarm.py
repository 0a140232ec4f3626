"""/swarm, /worktrees, /merge and /undo of a merge in the TUI (Pilot, real git)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from .conftest import connected, drive, send, transcript_text, until

FIXED = "def add(a, b):\n    return a + b\n"
ORIGINAL = "def add(a, b):\n    raise NotImplementedError\n"


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_swarm_merge_undo_and_cleanup_from_the_prompt(tui: Any, project: Path) -> None:
    (project / "calc.py").write_text(ORIGINAL)
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "initial")
    write = {"name": "write", "arguments": {"path": "calc.py", "content": FIXED}}
    app, _ = tui([{"tool_calls": [write]}, {"content": "Added add."}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/swarm implement add --judge none")
        await until(pilot, lambda: "JUDGE: winner=none" in transcript_text(app), "the verdict")
        assert app.transcript.card("0-fake-model") is not None  # the candidate's card
        assert (project / "calc.py").read_text() == ORIGINAL  # untouched until /merge
        await until(pilot, lambda: not app.driver.busy, "the race to end")
        await send(pilot, "/worktrees")
        await until(pilot, lambda: "0-fake-model  " in transcript_text(app), "/worktrees")
        await send(pilot, "/merge 0-fake-model")
        await until(pilot, lambda: "merged 0-fake-model: calc.py" in transcript_text(app), "merge")
        assert (project / "calc.py").read_text() == FIXED
        await send(pilot, "/undo")
        await until(pilot, lambda: "restored to pre-turn state" in transcript_text(app), "undo")
        assert (project / "calc.py").read_text() == ORIGINAL
        await send(pilot, "/merge --cleanup")
        await until(pilot, lambda: "removed 1 swarm worktree" in transcript_text(app), "cleanup")
        await send(pilot, "/swarm --explore")
        await until(pilot, lambda: "usage: /swarm <task>" in transcript_text(app), "usage")

    drive(app, scenario)
    assert _git(project, "worktree", "list").count("\n") == 1

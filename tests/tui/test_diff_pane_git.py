"""The diff pane's `git diff` runs nothing the repository configured (issue 30): a
sandboxed command could have written `diff.external` or a clean filter into
`.git/config`, and the pane runs git outside the sandbox. Textual pilot, real git."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from .conftest import connected, drive, until


def test_the_diff_pane_runs_no_repository_command(tui: Any, project: Path, tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    evil = tmp_path / "evil.sh"
    evil.write_text(f'#!/bin/sh\ntouch "{marks}/$1"\ncat\n')
    evil.chmod(0o755)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "tracked.txt").write_text("old line\n")
    (project / "other.txt").write_text("x\n")
    subprocess.run(["git", "add", "tracked.txt", "other.txt"], cwd=project, check=True)
    for key, value in (
        ("diff.external", f"{evil} external"),
        ("filter.lfsish.clean", f"{evil} clean"),
        ("filter.dotted.name.process", f"{evil} process"),
        ("diff.pretty.textconv", f"{evil} textconv"),
    ):
        subprocess.run(["git", "config", key, value], cwd=project, check=True)
    (project / ".gitattributes").write_text(
        "tracked.txt filter=lfsish diff=pretty\nother.txt filter=dotted.name\n"
    )
    (project / "tracked.txt").write_text("new line\n")
    (project / "other.txt").write_text("y\n")
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await pilot.press("ctrl+d")
        diff = app.activity.query_one("#diff-text", Static)
        await until(pilot, lambda: "+new line" in str(diff.content), "the diff")

    drive(app, scenario)
    assert sorted(p.name for p in marks.iterdir()) == []

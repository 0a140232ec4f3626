"""Bad input and the smaller daily annoyances (issue 21, items 5 and 8)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from rift.events import Done, TurnStats

from .conftest import connected, drive, idle, send, transcript_text, until

BAD_URLS = ["http://127.0.0.1:11434x", "http://[::1"]


@pytest.mark.parametrize("url", BAD_URLS)
def test_a_malformed_host_flag_is_one_line_and_a_failure(project: Path, url: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "rift", "--host", url, "-m", "fake-model"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert url in lines[0] and "host" in lines[0]


@pytest.mark.parametrize("url", BAD_URLS)
def test_a_malformed_host_command_is_one_line(tui: Any, url: str) -> None:
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, f"/host {url}")
        await until(pilot, lambda: "! " in transcript_text(app), "the error")
        errors = [line for line in transcript_text(app).splitlines() if line.startswith("! ")]
        assert len(errors) == 1 and url in errors[0], errors
        assert app.is_running
        assert app.status_bar.state.model == "fake-model"  # still connected as before

    drive(app, scenario)


def test_ctx_with_a_k_suffix_and_a_bad_approve_argument(tui: Any) -> None:
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/ctx 16k")
        await until(pilot, lambda: app.status_bar.state.limit == 16384, "num_ctx 16384")
        await send(pilot, "/approve maybe")
        await until(pilot, lambda: "! " in transcript_text(app), "the usage error")
        assert "/approve [on|off]" in transcript_text(app)
        assert app.status_bar.state.mode != "auto"  # approval unchanged

    drive(app, scenario)


def test_plain_up_recalls_history_when_the_input_is_empty(tui: Any) -> None:
    app, _ = tui([{"content": "one"}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "remember me")
        await idle(pilot)
        await pilot.press("up")
        assert app.composer.input.text == "remember me"
        await pilot.press("down")
        assert app.composer.input.text == ""

    drive(app, scenario)


def test_export_without_a_path_writes_outside_the_project(tui: Any, project: Path) -> None:
    app, _ = tui([{"content": "Exported reply."}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "hello")
        await idle(pilot)
        await send(pilot, "/export")
        await until(pilot, lambda: "transcript written to" in transcript_text(app), "/export")

    drive(app, scenario)
    assert list(project.iterdir()) == []
    exports = list((Path(os.environ["XDG_DATA_HOME"]) / "rift" / "exports").glob("*.md"))
    assert len(exports) == 1 and "Exported reply." in exports[0].read_text()


def test_diff_includes_new_untracked_files(tui: Any, project: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "old.txt").write_text("old\n")
    subprocess.run(["git", "add", "old.txt"], cwd=project, check=True)
    subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"],
        cwd=project,
        check=True,
    )
    (project / "brand_new.py").write_text("print('fresh')\n")
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/diff")
        await until(pilot, lambda: "brand_new.py" in transcript_text(app), "the new file")
        assert "+print('fresh')" in transcript_text(app)

    drive(app, scenario)


def test_no_rate_for_a_sub_millisecond_generation(tui: Any) -> None:
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        app.emit(Done(stats=TurnStats(iterations=1, output_tokens=10, tokens_per_sec=1e7)))
        await pilot.pause(0.1)
        assert "tok/s" not in str(app.status_bar.content)
        app.emit(Done(stats=TurnStats(iterations=1, output_tokens=100, tokens_per_sec=42.5)))
        await until(pilot, lambda: "42.5 tok/s" in str(app.status_bar.content), "a real rate")

    drive(app, scenario)


def test_a_prompt_that_failed_because_the_server_is_down_goes_back_in_the_box(
    tui: Any,
) -> None:
    app, server = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        server.stop()
        await send(pilot, "are you up?")
        await until(pilot, lambda: "error:" in transcript_text(app), "the error")
        await idle(pilot)
        assert app.composer.input.text == "are you up?"

    drive(app, scenario)

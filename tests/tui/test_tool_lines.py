"""Tool activity in the transcript: one collapsible line per call, expandable to its output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from rift.frontends.tui.widgets.activity import ToolRow
from rift.frontends.tui.widgets.toolcall import ToolCallLine

from .conftest import connected, drive, idle, send, transcript_text, until


def _lines(app: Any) -> list[ToolCallLine]:
    return list(app.transcript.query(ToolCallLine))


def test_each_bash_call_is_a_line_that_expands_to_its_whole_output(tui: Any) -> None:
    commands = ["seq 1 300", "echo to-stderr >&2; exit 3", "echo three", "echo four"]
    app, _ = tui(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": c}} for c in commands]},
            {"content": "ran them"},
        ]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/yolo")
        await send(pilot, "run four commands")
        await idle(pilot)
        lines = _lines(app)
        assert [line.summary for line in lines] == [
            "✓ bash seq 1 300",
            "✗ bash echo to-stderr >&2; exit 3",
            "✓ bash echo three",
            "✓ bash echo four",
        ]
        assert all(line.collapsed for line in lines)
        assert not lines[0].body_text  # nothing rendered until it is opened
        lines[0].collapsed = False
        await until(pilot, lambda: "300" in lines[0].body_text, "the full output")
        assert "\n150\n" in lines[0].body_text
        assert lines[0].body_text.startswith("$ seq 1 300\n1\n")
        lines[1].collapsed = False
        await until(pilot, lambda: "to-stderr" in lines[1].body_text, "stderr")
        assert "ran them" in transcript_text(app)
        # the side pane stays a one-line-per-call summary
        assert len(list(app.activity.log_view.query(ToolRow))) == 4

    drive(app, scenario)


def test_an_edit_line_counts_changed_lines_like_git(tui: Any, project: Path) -> None:
    old = "".join(f"line {n}\n" for n in range(1, 26))
    new = old.replace("line 2\n", "LINE 2\n").replace("line 20\n", "LINE 20\n")
    (project / "long.txt").write_text(old)
    app, _ = tui(
        [
            {"tool_calls": [{"name": "write", "arguments": {"path": "long.txt", "content": new}}]},
            {"content": "done"},
        ]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/yolo")
        await send(pilot, "capitalise two lines")
        await idle(pilot)
        (line,) = _lines(app)
        assert line.summary == "✓ write long.txt  +2 -2"
        assert "  long.txt +2 -2" in app.activity.log_view.lines
        line.collapsed = False
        await until(pilot, lambda: "+LINE 20" in line.body_text, "the diff")
        assert "-line 2" in line.body_text

    drive(app, scenario)


def test_ctrl_c_cancels_a_running_bash_and_marks_it_cancelled(tui: Any) -> None:
    app, _ = tui(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30"}}]},
            {"content": "never"},
        ]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/yolo")
        await send(pilot, "wait a while")
        await until(pilot, lambda: _lines(app), "the bash line")
        await until(pilot, lambda: app.status_bar.state.phase == "running bash", "the phase")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: "turn cancelled" in transcript_text(app), "the cancel")
        await idle(pilot)
        (row,) = app.activity.log_view.query(ToolRow)
        assert row.has_class("cancelled") and not row.pending
        assert _lines(app)[0].summary == "⊘ bash sleep 30  cancelled"

    drive(app, scenario)

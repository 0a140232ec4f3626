"""A turn in the TUI: streamed reply, tool rows, approvals, hunk review, cancel."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Markdown

from rift.frontends.tui.screens.picker import PickerScreen
from rift.frontends.tui.screens.review import HunkView, ReviewScreen
from rift.frontends.tui.widgets.activity import ToolRow

from .conftest import connected, drive, idle, send, transcript_text, until


def test_a_prompt_streams_a_markdown_reply(tui: Any) -> None:
    app, server = tui([{"content": ["Hello", " from", " **rift**", "."], "chunk_delay": 0.02}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "say hello")
        await until(pilot, lambda: "Hello from **rift**." in transcript_text(app), "the reply")
        await idle(pilot)
        replies = list(app.transcript.query(Markdown))
        assert [r.source for r in replies] == ["Hello from **rift**."]
        assert "› say hello" in transcript_text(app)
        assert app.status_bar.state.model == "fake-model"

    drive(app, scenario)
    assert "say hello" in json.dumps(server.chat_requests()[-1]["messages"])


def test_a_tool_call_shows_a_row_with_its_result(tui: Any, project: Path) -> None:
    (project / "notes.txt").write_text("one\ntwo\n")
    app, _ = tui(
        [
            {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
            {"content": "It has two lines."},
        ]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "read the notes")
        await idle(pilot)
        rows = list(app.activity.log_view.query(ToolRow))
        assert [(r.tool, r.target, r.pending) for r in rows] == [("read", "notes.txt", False)]
        assert rows[0].has_class("ok")
        assert app.activity.log_view.lines[0] == "→ read notes.txt"
        assert app.activity.log_view.lines[1].startswith("✓ read")
        assert "It has two lines." in transcript_text(app)

    drive(app, scenario)


def _bash_turns(marker: str) -> list[dict[str, Any]]:
    command = f"echo hi > {marker}"
    return [
        {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]},
        {"content": "finished"},
    ]


def test_an_approval_picker_accepts(tui: Any, project: Path) -> None:
    app, _ = tui(_bash_turns("accepted.txt"))

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "make the file")
        picker = await until(
            pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen, "the picker"
        )
        assert picker.question == "Allow bash: echo hi > accepted.txt"
        assert picker.choices[0] == "allow once"
        await pilot.press("enter")
        await idle(pilot)

    drive(app, scenario)
    assert (project / "accepted.txt").read_text() == "hi\n"


def test_an_approval_picker_denies(tui: Any, project: Path) -> None:
    app, server = tui(_bash_turns("denied.txt"))

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "make the file")
        picker = await until(
            pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen, "the picker"
        )
        downs = picker.choices.index("deny")
        await pilot.press(*["down"] * downs, "enter")  # walk down to plain "deny"
        await idle(pilot)
        rows = list(app.activity.log_view.query(ToolRow))
        assert rows[0].has_class("failed")

    drive(app, scenario)
    assert not (project / "denied.txt").exists()
    assert "DENIED" in json.dumps(server.chat_requests()[-1]["messages"])


def test_escape_on_a_picker_denies(tui: Any, project: Path) -> None:
    app, _ = tui(_bash_turns("escaped.txt"))

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "make the file")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen), "the picker")
        await pilot.press("escape")
        await idle(pilot)

    drive(app, scenario)
    assert not (project / "escaped.txt").exists()


def test_a_partial_hunk_review_writes_the_kept_hunks(tui: Any, project: Path) -> None:
    target = project / "letters.txt"
    target.write_bytes(b"a\nb\nc\nd\ne\n")
    app, _ = tui(
        [
            {
                "tool_calls": [
                    {
                        "name": "write",
                        "arguments": {"path": "letters.txt", "content": "a\nB\nc\nd\nE\n"},
                    }
                ]
            },
            {"content": "updated"},
        ]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "capitalise b and e")
        review = await until(
            pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen, "the review"
        )
        hunks = list(review.query(HunkView))
        assert len(hunks) == 2
        await pilot.press("y", "n")  # keep hunk 1 (b→B), drop hunk 2 (e→E)
        assert review.mask == [True, False]
        await pilot.press("enter")
        await idle(pilot)

    drive(app, scenario)
    assert target.read_bytes() == b"a\nB\nc\nd\ne\n"


def test_rejecting_every_hunk_leaves_the_file_alone(tui: Any, project: Path) -> None:
    target = project / "keep.txt"
    target.write_bytes(b"x\ny\n")
    app, server = tui(
        [
            {
                "tool_calls": [
                    {"name": "write", "arguments": {"path": "keep.txt", "content": "X\ny\n"}}
                ]
            },
            {"content": "ok"},
        ]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "change it")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press("r", "enter")
        await idle(pilot)

    drive(app, scenario)
    assert target.read_bytes() == b"x\ny\n"
    assert "DENIED" in json.dumps(server.chat_requests()[-1]["messages"])


def test_escape_cancels_the_turn(tui: Any) -> None:
    app, _ = tui([{"content": "working", "never_end": " more", "chunk_delay": 0.05}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "run forever")
        await until(pilot, lambda: "working" in transcript_text(app), "streaming to start")
        assert app.driver.busy
        await pilot.press("escape")
        await until(pilot, lambda: "turn cancelled" in transcript_text(app), "the cancel notice")
        await idle(pilot)
        assert not app.driver.busy

    drive(app, scenario)


def _outside_write_turns() -> list[dict[str, Any]]:
    write = {"name": "write", "arguments": {"path": "../outside.txt", "content": "x\n"}}
    return [{"tool_calls": [write]}, {"content": "finished"}]


def test_a_write_outside_the_project_is_asked_even_in_auto_mode(tui: Any, project: Path) -> None:
    """Issue 34: with approval off, a write past the project still asks, showing the
    resolved path; /add-dir then lets the next one through unasked."""
    app, _ = tui([*_outside_write_turns(), *_outside_write_turns()])
    target = project.parent / "outside.txt"

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/yolo")
        await until(pilot, lambda: app.status_bar.state.mode == "auto", "approval off")
        await send(pilot, "write outside")
        picker = await until(
            pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen, "the picker"
        )
        assert picker.question == f"Allow write outside the project: {target}"
        await pilot.press(*["down"] * picker.choices.index("deny"), "enter")
        await idle(pilot)
        assert not target.exists()
        await send(pilot, f"/add-dir {project.parent}")
        await until(pilot, lambda: "may now change files in" in transcript_text(app), "info")
        await send(pilot, "write outside again")
        await idle(pilot)
        assert not isinstance(app.screen, PickerScreen)

    drive(app, scenario)
    assert target.read_text() == "x\n"

"""Approvals people can trust, scrolling and layout at small sizes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from rift.config.load import load_config
from rift.core.permissions.hunks import diff_segments, preview_diff
from rift.frontends.tui.screens.picker import PickerScreen
from rift.frontends.tui.screens.review import ReviewScreen

from .conftest import connected, drive, idle, send, transcript_text, until

LONG = "echo " + " ".join(f"word{n}" for n in range(40)) + " && rm -rf build-output"


def _visible(widget: Any, size: tuple[int, int]) -> bool:
    region = widget.region
    return bool(region.area) and Region(0, 0, *size).contains_region(region)


def test_a_bash_approval_shows_the_whole_command_wrapped_and_numbered(tui: Any) -> None:
    app, _ = tui(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": LONG}}]},
            {"content": "ok"},
        ]
    )
    size = (80, 24)

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "do the long thing")
        picker = await until(
            pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen, "the picker"
        )
        await pilot.pause(0.1)
        assert LONG in picker.question
        question = picker.query_one("#picker-question", Static)
        assert question.region.height > 1  # wrapped, not cut
        assert _visible(question, size)
        options = picker.query_one(OptionList)
        first = str(options.get_option_at_index(0).prompt)
        assert first == "1. allow once"
        assert _visible(picker.query_one(".hint"), size)
        await pilot.press("escape")
        await idle(pilot)

    drive(app, scenario, size=size)


def test_a_dialog_with_a_long_diff_fits_80x24_with_its_key_hints(tui: Any) -> None:
    app, _ = tui()
    size = (80, 24)
    old = "".join(f"old {n}\n" for n in range(60))
    new = "".join(f"new {n}\n" for n in range(60))

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        choices = ["allow", "always allow edit this session", "deny"]
        app.push_screen(PickerScreen("Allow edit: a.txt", choices, preview_diff(old, new, 40)))
        picker = await until(
            pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen, "the picker"
        )
        await pilot.pause(0.1)
        assert _visible(picker.query_one(".hint"), size)
        assert _visible(picker.query_one("#picker-question"), size)
        assert _visible(picker.query_one(OptionList), size)
        await pilot.press("escape")
        app.push_screen(ReviewScreen(3, "write", "a.txt", diff_segments(old, new)))
        review = await until(
            pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen, "the review"
        )
        await pilot.pause(0.1)
        assert _visible(review.query_one(".hint"), size)
        assert _visible(review.query_one("#review-title"), size)
        await pilot.press("escape")

    drive(app, scenario, size=size)


def test_the_activity_pane_hides_itself_below_100_columns(tui: Any) -> None:
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        assert not app.activity.display
        await pilot.press("ctrl+l")
        assert app.activity.display  # the toggle still works
        await pilot.resize_terminal(120, 40)
        await pilot.pause(0.1)
        assert app.activity.display

    drive(app, scenario, size=(80, 24))


def test_a_long_reply_follows_the_bottom_and_page_keys_scroll_from_the_input(tui: Any) -> None:
    body = "\n\n".join(f"paragraph {n}" for n in range(80))
    app, _ = tui([{"content": body}, {"content": [f"more {n}\n\n" for n in range(30)]}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        transcript = app.transcript
        await send(pilot, "long please")
        await idle(pilot)
        await pilot.pause(0.2)
        assert transcript.max_scroll_y > 0
        assert transcript.scroll_y == transcript.max_scroll_y
        assert app.focused is app.composer.input
        await pilot.press("pageup")
        await pilot.pause(0.1)
        assert transcript.scroll_y < transcript.max_scroll_y
        held = transcript.scroll_y
        await send(pilot, "more please")
        await idle(pilot)
        await pilot.pause(0.2)
        assert transcript.scroll_y == held  # scrolled up: the view stays put
        await pilot.press("end")  # the input is empty: End goes to the bottom
        await pilot.pause(0.1)
        assert transcript.scroll_y == transcript.max_scroll_y
        await pilot.press("home")
        await pilot.pause(0.1)
        assert transcript.scroll_y == 0
        await pilot.press("pagedown")
        await pilot.pause(0.1)
        assert transcript.scroll_y > 0

    drive(app, scenario)


def test_deny_and_tell_rift_why_sends_the_reason_to_the_model(tui: Any, project: Any) -> None:
    app, server = tui(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "echo x > made.txt"}}]},
            {"content": "understood"},
        ]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "make it")
        picker = await until(
            pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen, "the picker"
        )
        assert picker.choices[-1] == "deny, and tell rift why"
        await pilot.press(str(len(picker.choices)))
        await until(pilot, lambda: app.pending_answer is not None, "the reason field")
        await send(pilot, "use the Makefile target instead")
        await idle(pilot)

    drive(app, scenario)
    assert not (project / "made.txt").exists()
    tool_results = [
        m["content"] for m in server.chat_requests()[-1]["messages"] if m["role"] == "tool"
    ]
    assert "DENIED" in tool_results[-1]
    assert "use the Makefile target instead" in tool_results[-1]


def test_permissions_show_the_rules_granted_in_this_session(tui: Any) -> None:
    app, _ = tui(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "git status"}}]},
            {"tool_calls": [{"name": "bash", "arguments": {"command": "ls -la"}}]},
            {"content": "both ran"},
        ]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "look around")
        picker = await until(
            pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen, "the picker"
        )
        assert picker.choices[1] == "always allow 'git status *' in this project"
        label = str(picker.query_one(OptionList).get_option_at_index(1).prompt)
        assert label.startswith("2. always allow Bash(git status *) in this project · saved")
        await pilot.press("2")
        picker = await until(
            pilot,
            lambda: (
                isinstance(app.screen, PickerScreen)
                and "ls -la" in app.screen.question
                and app.screen
            ),
            "the second picker",
        )
        await pilot.press("4")  # allow all bash this session
        await idle(pilot)
        await send(pilot, "/permissions")
        await until(pilot, lambda: "Bash(git status *)" in transcript_text(app), "the grant")
        assert "this session: bash" in transcript_text(app)

    drive(app, scenario)


def test_always_allow_is_saved_for_this_project_unless_the_user_picks_everywhere(
    tui: Any, project: Path
) -> None:
    app, _ = tui(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "git status"}}]},
            {"tool_calls": [{"name": "bash", "arguments": {"command": "ls -la"}}]},
            {"content": "both ran"},
        ]
    )
    labels: list[str] = []

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "look around")
        picker = await until(
            pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen, "the picker"
        )
        options = picker.query_one(OptionList)
        labels.extend(str(options.get_option_at_index(i).prompt) for i in (1, 2))
        await pilot.press("2")  # in this project
        await until(
            pilot,
            lambda: isinstance(app.screen, PickerScreen) and "ls -la" in app.screen.question,
            "the second picker",
        )
        await pilot.press("3")  # everywhere
        await idle(pilot)

    drive(app, scenario)
    assert labels == [
        "2. always allow Bash(git status *) in this project · saved to your config",
        "3. always allow Bash(git status *) everywhere · saved to your config",
    ]
    saved = json.loads((project.parent / "home/.config/rift/config.json").read_text())
    assert saved["permissions"]["allow"] == ["Bash(ls *)"]
    here = saved["projects"][os.path.realpath(project)]["permissions"]["allow"]
    assert here == ["Bash(git status *)"]
    other = project.parent / "other"
    other.mkdir()
    # The next run in this project allows both; any other project only the "everywhere" one.
    assert {"Bash(git status *)", "Bash(ls *)"} <= set(
        load_config(os.environ, project).permissions.allow
    )
    assert "Bash(git status *)" not in load_config(os.environ, other).permissions.allow


def test_a_review_can_allow_edits_for_the_rest_of_the_session(tui: Any, project: Any) -> None:
    (project / "a.txt").write_text("a\n")
    (project / "b.txt").write_text("b\n")
    app, _ = tui(
        [
            {"tool_calls": [{"name": "write", "arguments": {"path": "a.txt", "content": "A\n"}}]},
            {"tool_calls": [{"name": "write", "arguments": {"path": "b.txt", "content": "B\n"}}]},
            {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]},
            {"content": "done"},
        ]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "edit both")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press("s")  # apply, and allow edits for this session
        await until(pilot, lambda: isinstance(app.screen, PickerScreen), "bash still asks")
        assert (project / "b.txt").read_text() == "B\n"  # the second edit needed no review
        await pilot.press("1")
        await idle(pilot)

    drive(app, scenario)
    assert (project / "a.txt").read_text() == "A\n"

"""Session settings from the prompt: approval modes, /remember, /cost, auto-continue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from rift.frontends.tui.screens.picker import PickerScreen
from rift.frontends.tui.screens.review import ReviewScreen

from .conftest import connected, drive, idle, send, transcript_text, until


def _status(app: Any) -> str:
    return str(app.status_bar.content)


def test_mode_switches_the_approval_mode_and_shows_it(tui: Any, project: Path) -> None:
    write = {"name": "write", "arguments": {"path": "plan.txt", "content": "x\n"}}
    app, _ = tui([{"tool_calls": [write]}, {"content": "I only planned"}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/mode plan")
        await until(pilot, lambda: "mode: plan" in _status(app), "plan mode in the status bar")
        assert app.driver.conversation is not None
        assert app.driver.conversation.mode == "plan"
        await send(pilot, "write it")
        await idle(pilot)
        assert not isinstance(app.screen, PickerScreen)  # refused, never asked
        await send(pilot, "/mode accept-edits")
        await until(pilot, lambda: "mode: accept-edits" in _status(app), "accept-edits")
        await send(pilot, "/mode sometimes")
        await until(pilot, lambda: "usage: /mode" in transcript_text(app), "the usage error")
        assert app.driver.conversation.mode == "accept-edits"  # unchanged
        await send(pilot, "/mode auto")
        await until(pilot, lambda: "yolo: approval off" in _status(app), "auto")
        assert not app.status_bar.state.approve
        await send(pilot, "/approve")
        await until(pilot, lambda: "approve: on" in _status(app), "/approve still works")
        assert app.driver.conversation.mode == "ask"
        await send(pilot, "/yolo")
        await until(pilot, lambda: app.driver.conversation.mode == "auto", "/yolo still works")
        await send(pilot, "/mode")
        await until(pilot, lambda: "approval mode: auto" in transcript_text(app), "the listing")

    drive(app, scenario)
    assert not (project / "plan.txt").exists()


def test_remember_saves_a_fact_after_the_edit_review(tui: Any, project: Path) -> None:
    app, _ = tui()
    memory = project / ".rift" / "memory.md"

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/remember tests run with   make check")
        review = await until(
            pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen, "the review"
        )
        assert ".rift/memory.md" in review.path
        await pilot.press("enter")
        await until(pilot, lambda: "remembered in" in transcript_text(app), "the confirmation")
        await send(pilot, "/remember tests run with make check")
        await until(pilot, lambda: "already remembered" in transcript_text(app), "no duplicate")
        await send(pilot, "/remember")
        await until(pilot, lambda: "usage: /remember" in transcript_text(app), "the usage")
        await send(pilot, "/remember secrets live in prod")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the second review")
        await pilot.press("escape")  # rejected: nothing written
        await until(pilot, lambda: "not remembered" in transcript_text(app), "the refusal")
        await until(pilot, lambda: not app.driver.busy, "the command to end")

    drive(app, scenario)
    assert memory.read_text() == "- tests run with make check\n"

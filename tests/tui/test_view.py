"""How core events look: plan, ± previews, thinking, sub-agent cards, the status gauge.

These feed events through `RiftApp.emit`, the same entry the agent uses, so
they show the rendering of events that are awkward to script end to end.
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot
from textual.widgets import Collapsible

from rift.events import (
    Ask,
    ContextGauge,
    EditDiff,
    Plan,
    PlanItem,
    SubagentActivity,
    SubagentFinished,
    SubagentStarted,
    TaskStarted,
    Thinking,
)
from rift.frontends.tui.widgets.cards import SubagentCard

from .conftest import connected, drive, idle, send, transcript_text, until


def test_plan_diff_preview_and_cards(tui: Any) -> None:
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        app.emit(Plan(items=[PlanItem("read the code", True), PlanItem("fix the bug", False)]))
        app.emit(EditDiff(path="a.py", added=1, removed=1, diff=["@@ line 2 @@", "-x", "+y"]))
        app.emit(SubagentStarted(tag="explore-1", model="fake-model", label="map the tests"))
        app.emit(SubagentActivity(tag="explore-1", text="→ grep def test_", warn=False))
        plan = app.activity.plan
        await until(pilot, lambda: plan.display, "the plan")
        assert str(plan.content).splitlines() == ["plan", "☑ read the code", "◐ fix the bug"]
        await until(pilot, lambda: app.transcript.card("explore-1"), "the card")
        card = app.transcript.card("explore-1")
        assert isinstance(card, SubagentCard)
        assert card.lines == [("→ grep def test_", False)]
        app.emit(SubagentFinished(tag="explore-1", steps=3))
        await until(pilot, lambda: card.has_class("finished"), "the card to finish")
        assert card.state == "done · 3 steps"
        assert app.activity.log_view.lines[-3:] == ["@@ line 2 @@", "-x", "+y"]
        app.emit(TaskStarted(id=1, label="pytest -q"))
        await until(pilot, lambda: "task #1 started" in app.activity.log_view.lines[-1], "task")

    drive(app, scenario)


def test_thinking_folds_away_when_the_reply_starts(tui: Any) -> None:
    models = [
        {"name": "fake-model", "capabilities": ["tools", "thinking"], "context_length": 32768}
    ]
    app, _ = tui([{"thinking": ["Let me ", "think."], "content": "Answer."}], models=models)

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "question")
        await idle(pilot)
        boxes = list(app.transcript.query(Collapsible))
        assert len(boxes) == 1
        assert boxes[0].collapsed
        assert boxes[0].title == "thought · 3 words"

    drive(app, scenario)


def test_gauge_colours_follow_the_level(tui: Any) -> None:
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        for used, style in ((1000, "green"), (20000, "yellow"), (30000, "bold red")):
            app.emit(ContextGauge(used=used, limit=32768))
            await until(pilot, lambda u=used: app.status_bar.state.used == u, "the gauge")
            spans = {str(s.style) for s in app.status_bar.content.spans}  # type: ignore[union-attr]
            assert style in spans

    drive(app, scenario)


def test_a_thinking_event_alone_opens_a_block(tui: Any) -> None:
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        app.emit(Thinking(text="pondering"))
        await until(pilot, lambda: list(app.transcript.query(Collapsible)), "the block")

    drive(app, scenario)


def test_a_free_text_ask_turns_the_input_into_an_answer_field(tui: Any) -> None:
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        app.emit(Ask(id=41, question="Which branch?", detail=[], choices=[]))
        await until(pilot, lambda: app.pending_answer == 41, "answer mode")
        assert "? Which branch?" in transcript_text(app)
        await send(pilot, "main")
        await until(pilot, lambda: "answer: main" in transcript_text(app), "the answer")
        assert app.pending_answer is None
        assert not app.driver.busy  # the answer was not sent as a prompt
        app.emit(Ask(id=42, question="Anything else?", detail=[], choices=[]))
        await until(pilot, lambda: app.pending_answer == 42, "answer mode again")
        await pilot.press("escape")
        await until(pilot, lambda: "answer: (skipped)" in transcript_text(app), "the skip")

    drive(app, scenario)

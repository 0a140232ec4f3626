"""Core events → widgets. One handler per event type, in an explicit registry.

`EventView.show` is awaited by the app's event worker one event at a time, so
the screen always tells the story in the order the core emitted it. Asks and
edit reviews open modal screens whose results go back to the broker.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from rift.core.events import (
    Ask,
    Content,
    ContextGauge,
    Done,
    EditDiff,
    EditReview,
    EditReviewClosed,
    Event,
    Info,
    Iteration,
    ModelChanged,
    Plan,
    SubagentActivity,
    SubagentFinished,
    SubagentStarted,
    TaskFinished,
    TaskStarted,
    Thinking,
    ToolResult,
    ToolStart,
    Warning,
)
from rift.frontends.tui.format import RateMeter
from rift.frontends.tui.screens.picker import PickerScreen
from rift.frontends.tui.screens.review import ReviewScreen

if TYPE_CHECKING:
    from rift.frontends.tui.app import RiftApp

Handler = Callable[[Any], Awaitable[None] | None]


class EventView:
    """Renders the core's events into the app's widgets."""

    def __init__(self, app: RiftApp) -> None:
        self.app = app
        self.rate = RateMeter()
        self.handlers: dict[type[Event], Handler] = {
            Content: self._content,
            Thinking: self._thinking,
            ToolStart: self._tool_start,
            ToolResult: self._tool_result,
            EditDiff: self._edit_diff,
            Plan: self._plan,
            Done: self._done,
            Ask: self._ask,
            EditReview: self._edit_review,
            EditReviewClosed: self._review_closed,
            ContextGauge: self._context,
            ModelChanged: self._model_changed,
            Info: self._info,
            Warning: self._warning,
            Iteration: self._iteration,
            SubagentStarted: self._subagent_started,
            SubagentActivity: self._subagent_activity,
            SubagentFinished: self._subagent_finished,
            TaskStarted: self._task_started,
            TaskFinished: self._task_finished,
        }

    async def show(self, event: Event) -> None:
        handler = self.handlers.get(type(event))
        if handler is None:
            return  # serve-only answers (ready, sessions, models…) never reach the TUI
        result = handler(event)
        if result is not None:
            await result

    # ---------------------------------------------------------- streaming

    async def _content(self, event: Content) -> None:
        self._count(event.text)
        await self.app.transcript.stream_reply(event.text)

    def _thinking(self, event: Thinking) -> None:
        self._count(event.text)
        self.app.transcript.stream_thinking(event.text)

    def _count(self, text: str) -> None:
        self.rate.add(text, time.monotonic())
        self.app.status_bar.set(rate=self.rate.rate())

    async def _tool_start(self, event: ToolStart) -> None:
        await self.app.transcript.end_blocks()
        self.app.activity.log_view.started(event.tool, event.args)
        self.app.status_bar.set(text=f"running {event.tool}…")

    def _tool_result(self, event: ToolResult) -> None:
        self.app.activity.log_view.finished(event.tool, event.ok, event.preview)
        self.app.driver.totals.tools += 1
        self.app.driver.totals.tool_failures += 0 if event.ok else 1
        self.app.status_bar.set(text="thinking…")

    def _edit_diff(self, event: EditDiff) -> None:
        self.app.activity.log_view.edit_diff(event.path, event.added, event.removed, event.diff)
        self.app.refresh_diff()

    def _plan(self, event: Plan) -> None:
        self.app.plan_items = list(event.items)
        self.app.activity.plan.set_items(event.items)

    async def _done(self, event: Done) -> None:
        await self.app.transcript.end_blocks()
        self.app.driver.totals.add_turn(event.stats)
        rate = event.stats.tokens_per_sec or self.rate.rate()
        self.rate.reset()
        self.app.status_bar.set(rate=rate, text="ready")
        self.app.refresh_diff()

    def _iteration(self, event: Iteration) -> None:
        if event.n > 1:
            self.app.status_bar.set(text=f"step {event.n}…")

    # -------------------------------------------------------- interaction

    def _ask(self, event: Ask) -> None:
        broker = self.app.require_agent().broker
        if not event.choices:
            self.app.begin_answer(event.id, event.question)
            return
        deny = "deny" if "deny" in event.choices else ""

        def answered(choice: str | None) -> None:
            broker.answer(event.id, choice if choice is not None else deny)

        picker = PickerScreen(event.question, event.choices, event.detail)
        self.app.push_screen(picker, answered)

    def _edit_review(self, event: EditReview) -> None:
        # Imported here: hunks is core code, loaded with the agent, not before first paint.
        from rift.core.hunks import reassemble

        broker = self.app.require_agent().broker
        segments = event.segments

        def decided(mask: list[bool] | None) -> None:
            if mask is None or not any(mask):
                broker.decide(event.id, False, None)
            else:
                broker.decide(event.id, True, reassemble(segments, mask))

        self.app.push_screen(ReviewScreen(event.id, event.tool, event.path, segments), decided)

    def _review_closed(self, event: EditReviewClosed) -> None:
        for screen in self.app.screen_stack:
            if isinstance(screen, ReviewScreen) and screen.review_id == event.id:
                screen.dismiss(None)  # the broker ignores the late decision

    # ------------------------------------------------------------ status

    def _context(self, event: ContextGauge) -> None:
        self.app.status_bar.set(used=event.used, limit=event.limit)

    def _model_changed(self, event: ModelChanged) -> None:
        self.app.status_bar.set(model=event.model)
        note = f" — {event.note}" if event.note else ""
        self.app.say(f"model: {event.model} (num_ctx {event.num_ctx}){note}", "info")

    async def _info(self, event: Info) -> None:
        await self.app.transcript.end_blocks()
        self.app.say(event.text, "info")

    async def _warning(self, event: Warning) -> None:
        await self.app.transcript.end_blocks()
        self.app.say(event.text, "error" if event.text.startswith("error") else "warning")

    # ------------------------------------------------- sub-agents, tasks

    async def _subagent_started(self, event: SubagentStarted) -> None:
        await self.app.transcript.end_blocks()
        self.app.transcript.add_card(event.tag, event.model, event.label)

    def _subagent_activity(self, event: SubagentActivity) -> None:
        card = self.app.transcript.card(event.tag)
        if card is not None:
            card.activity(event.text, event.warn)

    def _subagent_finished(self, event: SubagentFinished) -> None:
        card = self.app.transcript.card(event.tag)
        if card is not None:
            card.finish(event.steps)

    def _task_started(self, event: TaskStarted) -> None:
        self.app.activity.log_view.note(f"⧗ task #{event.id} started: {event.label}", "cyan")
        self.app.refresh_tasks()

    def _task_finished(self, event: TaskFinished) -> None:
        mark, style = ("✓", "green") if event.ok else ("✗", "red")
        self.app.activity.log_view.note(f"{mark} task #{event.id} finished: {event.label}", style)
        self.app.refresh_tasks()

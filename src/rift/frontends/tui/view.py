"""Core events → widgets. One handler per event type, in an explicit registry.

The app's event worker awaits `EventView.show` one event at a time, so the screen tells
the story in the order the core emitted it."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from rift import __version__
from rift.events import (
    Ask,
    Content,
    ContextGauge,
    Done,
    EditDiff,
    EditReview,
    EditReviewClosed,
    Event,
    History,
    Info,
    Iteration,
    ModelChanged,
    Plan,
    PrefillProgress,
    SessionChanged,
    SubagentActivity,
    SubagentFinished,
    SubagentStarted,
    SwarmResult,
    SwarmStarted,
    TaskFinished,
    TaskStarted,
    Thinking,
    ToolResult,
    ToolStart,
    Warning,
)
from rift.frontends.tui.format import RateMeter, prefill_line, rate_to_show
from rift.frontends.tui.screens.picker import PickerScreen
from rift.frontends.tui.screens.review import ReviewScreen
from rift.frontends.tui.screens.swarm import SwarmScreen

if TYPE_CHECKING:
    from rift.frontends.tui.host import CommandHost
    from rift.frontends.tui.widgets.toolcall import ToolCallLine

Handler = Callable[[Any], Awaitable[None] | None]
DENY_WHY = "deny, and tell rift why"
"""Offered beside every "deny": the typed reason reaches the model (gate.DENY_WITH_REASON)."""


class EventView:
    """Renders the core's events into the app's widgets (the app owns it; sees a CommandHost)."""

    def __init__(self, app: CommandHost) -> None:
        self.app = app
        self.rate = RateMeter()
        self._tool_asks: dict[int, PickerScreen] = {}
        """Approval pickers raised by a running tool call: moot once the turn is done."""
        self._tool_running = False
        self._turn_did_something = False
        self._last_line: ToolCallLine | None = None
        self._last_info = ""
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
            History: self._history,
            SessionChanged: self._session_changed,
            Warning: self._warning,
            Iteration: self._iteration,
            PrefillProgress: self._prefill,
            SubagentStarted: self._subagent_started,
            SubagentActivity: self._subagent_activity,
            SubagentFinished: self._subagent_finished,
            SwarmStarted: self._swarm_started,
            SwarmResult: self._swarm_result,
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
        if not isinstance(event, Info):
            self._last_info = ""

    def turn_began(self) -> None:
        self._turn_did_something = False
        self.rate.reset()

    async def _content(self, event: Content) -> None:
        self._count(event.text)
        self._turn_did_something = True
        self.app.set_phase("writing")
        await self.app.transcript.stream_reply(event.text)

    def _thinking(self, event: Thinking) -> None:
        self._count(event.text)
        self._turn_did_something = True
        self.app.set_phase("thinking")
        self.app.transcript.stream_thinking(event.text)

    def _count(self, text: str) -> None:
        self.rate.add(text, time.monotonic())
        self.app.status_bar.set(rate=self.rate.rate())

    async def _tool_start(self, event: ToolStart) -> None:
        await self.app.transcript.end_blocks()
        call_id = event.id or None
        self._turn_did_something = self._tool_running = True
        self.app.activity.log_view.started(event.tool, event.args, call_id)
        self.app.transcript.add_tool(event.tool, event.args, call_id)
        self.app.set_phase(f"running {event.tool}")

    def _tool_result(self, event: ToolResult) -> None:
        call_id = event.id or None
        self._tool_running = False
        self.app.activity.log_view.finished(event.tool, event.ok, event.preview, call_id)
        line = self.app.transcript.tool_line(event.tool, call_id)
        if line is not None:
            line.finish(event.ok, event.output or event.preview)
        self._last_line = line
        self.app.driver.totals.tools += 1
        self.app.driver.totals.tool_failures += 0 if event.ok else 1
        self.app.set_phase("waiting for the model")
        if event.tool == "task":  # a kill is silent: the task tool's result says it
            self.app.refresh_tasks()

    def _edit_diff(self, event: EditDiff) -> None:
        self.app.activity.log_view.edit_diff(event.path, event.added, event.removed, event.diff)
        line = self._last_line  # edit_diff follows its tool_result immediately
        if line is not None and line.counts is None:
            line.add_diff(event.added, event.removed, event.diff)
        self.app.refresh_diff()

    def _plan(self, event: Plan) -> None:
        self.app.plan_items = list(event.items)
        self.app.activity.plan.set_items(event.items)

    async def _done(self, event: Done) -> None:
        await self.app.transcript.end_blocks()
        self.app.activity.log_view.cancel_pending()
        self.app.transcript.cancel_pending_tools()
        self._tool_running = False
        for screen in self._tool_asks.values():
            if screen in self.app.screen_stack:
                screen.dismiss(None)  # the turn is over (cancelled): its approvals are moot
        self._tool_asks.clear()
        self.app.driver.totals.add_turn(event.stats, event.cost_usd)
        stats = event.stats
        rate = rate_to_show(stats.tokens_per_sec, stats.output_tokens) or self.rate.rate()
        self.rate.reset()
        self.app.status_bar.set(rate=rate)
        self.app.status_bar.end_turn()
        if event.outcome == "error" and not self._turn_did_something:
            self.app.restore_prompt()
        self.app.refresh_diff()
        self.app.refresh_tasks()

    def _prefill(self, event: PrefillProgress) -> None:
        """A progress line while the server reads a long prompt; its speed for /stats."""
        self.app.set_phase(prefill_line(event))
        if event.tokens_per_sec:
            self.app.driver.totals.prefill_tokens_per_sec = event.tokens_per_sec

    def _iteration(self, event: Iteration) -> None:
        if event.n > 1:
            self.app.set_phase(f"step {event.n} · waiting for the model")

    def _ask(self, event: Ask) -> None:
        conversation = self.app.require_conversation()
        if not event.choices:
            self.app.begin_answer(event.id, event.question)
            return
        deny = "deny" if "deny" in event.choices else ""
        choices = [*event.choices, DENY_WHY] if deny else list(event.choices)

        def answered(choice: str | None) -> None:
            self._tool_asks.pop(event.id, None)
            if choice == DENY_WHY:  # the reason is typed in the input, then sent with the deny
                self.app.begin_answer(event.id, "Why not? rift reads your answer", "deny: ")
                return
            answer(conversation, event.id, choice if choice is not None else deny)

        from rift.core import answer, option_label  # the core words what its choices mean

        meanings = {option.id: option_label(option) for option in event.options}
        labels = [meanings.get(c, c) for c in choices]
        picker = PickerScreen(event.question, choices, event.detail, labels=labels)
        if self._tool_running:  # trust questions (not tied to a call) outlive the turn
            self._tool_asks[event.id] = picker
        self.app.set_phase("waiting for you")
        self.app.push_screen(picker, answered)

    def _edit_review(self, event: EditReview) -> None:
        from rift.core import allow_for_session, decide, reassemble

        conversation = self.app.require_conversation()
        segments = event.segments

        screen = ReviewScreen(event.id, event.tool, event.path, segments)

        def decided(mask: list[bool] | None) -> None:
            if screen.allow_session:  # bash still asks: only writes and edits are let through
                allow_for_session(conversation, "write", "edit")
                self.app.say("edits and writes run without review for the rest of this session")
            if mask is None or not any(mask):
                decide(conversation, event.id, False, None)
            else:
                decide(conversation, event.id, True, reassemble(segments, mask))

        self.app.set_phase("waiting for you")
        self.app.push_screen(screen, decided)

    def _review_closed(self, event: EditReviewClosed) -> None:
        for screen in self.app.screen_stack:
            if isinstance(screen, ReviewScreen) and screen.review_id == event.id:
                screen.dismiss(None)  # the broker ignores the late decision

    def _context(self, event: ContextGauge) -> None:
        self.app.status_bar.set(used=event.used, limit=event.limit)

    def _model_changed(self, event: ModelChanged) -> None:
        self.app.status_bar.set(model=event.model)
        note = f" — {event.note}" if event.note else ""
        self.app.say(f"model: {event.model} (num_ctx {event.num_ctx}){note}", "info")

    async def _info(self, event: Info) -> None:
        await self.app.transcript.end_blocks()
        self.app.say(event.text, "info")
        self._last_info = event.text

    async def _history(self, event: History) -> None:
        """A rewind: redraw from the owner's history, its notice shown again below it."""
        transcript = self.app.transcript
        await transcript.clear_all()
        transcript.add_banner(__version__, self.app.status_bar.state.model)
        items = [(m.role, m.text) for m in event.messages]
        if items:
            await transcript.add_history(items)
        if self._last_info:
            self.app.say(self._last_info, "info")

    def _session_changed(self, event: SessionChanged) -> None:
        self.app.driver.totals = type(self.app.driver.totals)()

    async def _warning(self, event: Warning) -> None:
        await self.app.transcript.end_blocks()
        error = event.code == "error" or event.text.startswith("error")
        self.app.say(event.text, "error" if error else "warning")

    async def _subagent_started(self, event: SubagentStarted) -> None:
        await self.app.transcript.end_blocks()
        self.app.transcript.add_card(event.tag, event.model, event.label)
        self._swarm_changed(self.app.driver.swarm.started(event))

    def _subagent_activity(self, event: SubagentActivity) -> None:
        card = self.app.transcript.card(event.tag)
        if card is not None:
            card.activity(event.text, event.warn)
        self._swarm_changed(self.app.driver.swarm.activity(event))

    def _subagent_finished(self, event: SubagentFinished) -> None:
        card = self.app.transcript.card(event.tag)
        if card is not None:
            card.finish(event.steps)
        self._swarm_changed(self.app.driver.swarm.finished(event))

    def _swarm_started(self, event: SwarmStarted) -> None:
        self.app.driver.swarm.begin(event)
        self._swarm_changed()

    def _swarm_result(self, event: SwarmResult) -> None:
        self.app.driver.swarm.judged(event)
        self._swarm_changed()

    def _swarm_changed(self, changed: bool = True) -> None:
        """A candidate event: an open swarm screen follows it."""
        if changed:
            SwarmScreen.refresh_open(list(self.app.screen_stack))

    def _task_started(self, event: TaskStarted) -> None:
        self.app.activity.log_view.note(f"⧗ task #{event.id} started: {event.label}", "cyan")
        self.app.refresh_tasks()

    def _task_finished(self, event: TaskFinished) -> None:
        mark, style = ("✓", "green") if event.ok else ("✗", "red")
        self.app.activity.log_view.note(f"{mark} task #{event.id} finished: {event.label}", style)
        self.app.refresh_tasks()

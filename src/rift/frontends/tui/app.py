"""The Textual application: one chat screen, modal pickers, and the core's event worker.

Startup paints first and connects second (after the first frame), and a failed bind
leaves the UI open with a banner saying how to point rift at a server. A prompt sent
while a turn runs is queued by the core; one sent while the model binds waits for it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.screen import Screen

from rift.config.load import Config
from rift.errors import RiftError
from rift.frontends.tui.driver import Driver
from rift.frontends.tui.screens.chat import ChatScreen
from rift.frontends.tui.widgets.activity import ActivityPane
from rift.frontends.tui.widgets.composer import PLACEHOLDER, CommandHint, Composer, PromptInput
from rift.frontends.tui.widgets.status import StatusBar
from rift.frontends.tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from rift.core import Conversation, Started
    from rift.events import Event, PlanItem
    from rift.frontends.tui.view import EventView

log = logging.getLogger("rift.tui")
HERE = Path(__file__).parent
QUIT_WINDOW_S = 2.0
"""A second Ctrl+C on an idle prompt within this many seconds quits."""
ACTIVITY_MIN_WIDTH = 100
OFFLINE_HELP = (
    "Point rift at a model server:\n"
    "  • rift --host http://HOST:11434   (end the URL in /v1 for OpenAI-compatible)\n"
    "  • export RIFT_HOST=http://HOST:11434\n"
    '  • "host": "http://HOST:11434" in ~/.config/rift/config.json\n'
    "  • or type /host URL here; /model NAME picks another model"
)


class RiftApp(App[int]):
    """rift's terminal UI."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [
        HERE / "app.tcss",
        HERE / "widgets" / "transcript.tcss",
        HERE / "widgets" / "activity.tcss",
        HERE / "widgets" / "composer.tcss",
        HERE / "widgets" / "status.tcss",
        HERE / "screens" / "modal.tcss",
    ]
    ENABLE_COMMAND_PALETTE = False
    TITLE = "rift"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel turn", show=False),
        Binding("ctrl+d", "toggle_diff", "live diff", show=False, priority=True),
        Binding("ctrl+l", "toggle_activity", "activity pane", show=False, priority=True),
        Binding("ctrl+c", "interrupt", "cancel turn / quit", show=False, priority=True),
    ]

    def __init__(
        self,
        config: Config,
        *,
        continue_last: bool = False,
        resume: Path | None = None,
        ready_file: Path | None = None,
    ) -> None:
        super().__init__()
        self.driver = Driver(config, self.emit, continue_last=continue_last, resume=resume)
        self.ready_file = ready_file
        self.plan_items: list[PlanItem] = []
        self.pending_answer: int | None = None
        self._answer_prefix = ""
        self._events: asyncio.Queue[Event] = asyncio.Queue()
        self._view: EventView | None = None
        self._files: list[str] | None = None
        self.connecting = True
        """Until the first bind has succeeded or failed: prompts wait for `_bound` meanwhile."""
        self._bound = asyncio.Event()
        self.last_prompt = ""
        """The newest prompt as typed, put back in the box when its turn failed to start."""
        self._activity_choice: bool | None = None
        """The person's Ctrl+L choice; None lets the pane follow the terminal's width."""
        self._quit_armed_at = 0.0
        self._early_keys: list[events.Key] | None = []
        """Keys that arrived before the input box existed (typed while rift started)."""
        self.chat = ChatScreen(self)

    def get_default_screen(self) -> Screen[Any]:
        return self.chat

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and self._early_keys is not None:
            self._early_keys.append(event)  # replayed into the input once it is focused
            return
        await super().on_event(event)

    def replay_early_keys(self) -> None:
        """Type what arrived before the first frame into the input; each line end sends it
        (typed in the terminal's line mode, Enter arrives as a newline)."""
        keys, self._early_keys = self._early_keys or [], None
        prompt = self.composer.input
        line = ""
        for key in keys:
            if key.key in ("enter", "ctrl+j", "ctrl+m"):
                if line.strip():
                    # From the input's own queue, so the app is not the message's sender
                    # (Textual never delivers a message back to its sender).
                    prompt.call_later(prompt.send_text, line)
                line = ""
            elif key.is_printable and key.character:
                line += key.character
        if line:
            prompt.insert(line)

    @property
    def transcript(self) -> Transcript:
        return self.chat.query_one(Transcript)

    @property
    def activity(self) -> ActivityPane:
        return self.chat.query_one(ActivityPane)

    @property
    def status_bar(self) -> StatusBar:
        return self.chat.query_one(StatusBar)

    @property
    def composer(self) -> Composer:
        return self.chat.query_one(Composer)

    def say(self, text: str | Text, kind: str = "command") -> None:
        """A line from rift in the transcript (command output, notices, problems)."""
        self.transcript.add_notice(text, kind)

    @on(events.Ready)
    def _first_frame(self) -> None:
        """The first frame is on screen: now load the core and connect."""
        if self.ready_file is not None:
            stamp = f"{time.time():.6f} {time.process_time():.6f}\n"
            self.ready_file.write_text(stamp, encoding="utf-8")
            self.exit(0)
            return
        self._pump()
        self.set_interval(0.25, self._tick)
        self._connect()

    @on(events.Unmount)
    async def _shut_down(self) -> None:
        await self.driver.close()

    @work(exclusive=True, group="connect")
    async def _connect(self) -> None:
        try:
            started = await self.driver.connect()
            if started is None:
                self._show_offline(self.driver.offline or "no model server")
                return
            await self.after_bind(started, fresh=True)
        finally:
            self.connecting = False
            self._bound.set()  # prompts typed meanwhile go now (or back in the box)

    def _show_offline(self, reason: str) -> None:
        text = Text.assemble(("No model is connected.", "bold"), "\n")
        text.append(reason + "\n\n", style="yellow")
        text.append(OFFLINE_HELP)
        self.say(text, "offline")
        self.status_bar.set(model="(offline)", text="offline — /host URL to connect")

    async def after_bind(self, started: Started, *, fresh: bool) -> None:
        """A new conversation is in charge: status, resumed history, startup notices."""
        conversation = started.conversation
        state = conversation.state
        self.status_bar.set(model=state.model, mode=state.mode, text="ready")
        from rift.events import History

        for event in started.opening_events():
            if not isinstance(event, History):
                self.emit(event)
            elif fresh:  # a rebind keeps the transcript already on screen
                await self.transcript.add_history([(m.role, m.text) for m in event.messages])

    def require_conversation(self) -> Conversation:
        if self.driver.conversation is None:
            raise RiftError("no model is connected — /host URL or /model NAME first")
        return self.driver.conversation

    def emit(self, event: Event) -> None:
        self._events.put_nowait(event)

    @work(exclusive=True, group="events")
    async def _pump(self) -> None:
        """The core's event stream enters here, one event at a time, in order."""
        from rift.frontends.tui.view import EventView

        self._view = view = EventView(self)
        while True:
            event = await self._events.get()
            if not self.chat.is_attached:
                continue  # rift is closing: the conversation's last words have no screen
            try:
                await view.show(event)
            except Exception as exc:  # a rendering bug must not stop the stream
                if not self.chat.is_attached:
                    continue
                log.exception("rendering %s failed", type(event).__name__)
                self.say(f"internal error while showing {event.name}: {exc!r}", "error")

    @on(PromptInput.Submitted)
    async def _submitted(self, message: PromptInput.Submitted) -> None:
        text = message.text
        if self.pending_answer is not None:
            self._finish_answer(text)
            return
        from rift.frontends.tui.commands import is_command

        if is_command(text):
            self.say(Text("› " + text.strip(), style="bold"), "echo")
            self.run_command(text)
            return
        self.send_prompt(text)

    @work(group="command")
    async def run_command(self, text: str) -> None:
        from rift.frontends.tui.commands import dispatch

        try:
            await dispatch(self, text)
        except RiftError as exc:
            self.say(f"! {exc}", "error")
            self.status_bar.set(text="command failed")

    @property
    def queued(self) -> list[str]:
        """The prompts the conversation holds for after the running work, oldest first."""
        conversation = self.driver.conversation
        return list(conversation.state.queued) if conversation is not None else []

    def send_prompt(self, text: str, shown: str | None = None) -> None:
        """Start a turn now, or let the core queue it; while the model binds, wait for it."""
        if self.connecting:
            self._after_bind(text, shown)
            return
        if self.driver.conversation is None:
            self.say("! no model is connected — /host URL or /model NAME first", "warning")
            self.composer.input.load_text(shown if shown is not None else text)  # keep the draft
            return
        self._start(text, shown)

    @work(group="bind")
    async def _after_bind(self, text: str, shown: str | None) -> None:
        await self._bound.wait()
        self.send_prompt(text, shown)

    def _start(self, text: str, shown: str | None) -> None:
        """Submit to the conversation (it expands mentions and skills, and queues)."""
        typed = shown if shown is not None else text
        submitted = self.driver.start_turn(text)
        if submitted is None:  # refused (an unknown skill…): it said why
            self.last_prompt = typed
            self.restore_prompt()
        elif submitted.status == "started":
            self._began(typed)
        else:
            self._show_queue()
            self._when_begun(submitted.began, typed)

    @work(group="queue")
    async def _when_begun(self, began: asyncio.Future[bool], typed: str) -> None:
        """A queued prompt: shown as sent when the core starts its turn."""
        started = await began
        self._show_queue()
        if started and self.chat.is_attached:
            self._began(typed)

    def _began(self, typed: str) -> None:  # the prompt's turn started: show it as sent
        self.last_prompt = typed
        self.transcript.add_user(typed)
        self.status_bar.begin_turn("waiting for the first token")
        if self._view is not None:
            self._view.turn_began()

    def _show_queue(self) -> None:
        queued = self.queued
        self.composer.show_queue(queued)
        self.status_bar.set(queued=len(queued))

    def restore_prompt(self) -> None:
        """The turn failed before anything happened (server down): the prompt goes back."""
        prompt = self.composer.input
        if self.last_prompt and not prompt.text:
            prompt.load_text(self.last_prompt)
            prompt.move_cursor(prompt.document.end)

    def set_phase(self, phase: str) -> None:
        if self.status_bar.state.started is not None:
            self.status_bar.set(phase=phase, text=phase)

    def begin_answer(self, ask_id: int, question: str, prefix: str = "") -> None:
        """A free-text ask: the input becomes the answer field (Esc skips); `prefix` goes
        before what is typed (`deny: ` for "deny, and tell rift why")."""
        self.pending_answer = ask_id
        self._answer_prefix = prefix
        self.say(Text("? " + question, style="bold cyan"), "ask")
        prompt = self.composer.input
        prompt.placeholder = "type your answer · Enter sends · Esc skips"
        prompt.focus()

    def _finish_answer(self, text: str) -> None:
        ask_id, self.pending_answer = self.pending_answer, None
        prefix, self._answer_prefix = self._answer_prefix, ""
        self.composer.input.placeholder = PLACEHOLDER
        if ask_id is not None and self.driver.conversation is not None:
            answer = prefix + text if prefix else text
            from rift.core import answer as answer_ask

            answer_ask(self.driver.conversation, ask_id, answer)
            self.say("answer: " + (answer or "(skipped)"), "info")

    def action_cancel(self) -> None:
        if self.pending_answer is not None:
            self._finish_answer("")
        elif self.driver.conversation is not None and self.driver.conversation.take_back():
            self._show_queue()
        elif self.driver.cancel():
            self.set_phase("cancelling…")

    def action_interrupt(self) -> None:
        """Ctrl+C: copy a selection, else cancel the turn, else (twice) quit."""
        prompt = self.composer.input
        if self.focused is prompt and prompt.selected_text:
            prompt.action_copy()
            return
        if self.driver.busy:
            if self.driver.cancel():
                self.set_phase("cancelling…")
            return
        now = time.monotonic()
        if now - self._quit_armed_at < QUIT_WINDOW_S:
            self.exit(0)
            return
        self._quit_armed_at = now
        self.notify("Press Ctrl+C again to quit rift (or type /quit)", timeout=QUIT_WINDOW_S)

    def action_toggle_diff(self) -> None:
        pane = self.activity
        pane.display = True
        pane.show_diff(not pane.showing_diff)
        self.refresh_diff()

    def action_toggle_activity(self) -> None:
        self._activity_choice = not self.activity.display
        self.activity.display = self._activity_choice

    def fit_activity(self, width: int) -> None:
        """Below 100 columns the side pane gives the transcript its room, unless Ctrl+L said."""
        if self._activity_choice is None:
            self.activity.display = width >= ACTIVITY_MIN_WIDTH

    def refresh_diff(self) -> None:
        if self.activity.showing_diff:
            self._diff_worker()

    @work(exclusive=True, group="diff")
    async def _diff_worker(self) -> None:
        from rift.frontends.tui.gitdiff import git_diff

        self.activity.set_diff(await git_diff(self.driver.config.cwd))

    def _tick(self) -> None:
        with contextlib.suppress(NoMatches):  # the screen is being torn down
            self.status_bar.tick()

    def refresh_tasks(self) -> None:  # on task_started/task_finished and after each turn
        tasks = self.driver.tasks
        if tasks is not None:
            with contextlib.suppress(NoMatches):  # the screen is being torn down
                self.status_bar.set(tasks=tasks.running_count)

    def command_hints(self) -> Sequence[CommandHint]:
        from rift.frontends.tui.commands import hints

        conversation = self.driver.conversation
        skills = conversation.state.skills if conversation is not None else {}
        return hints(sorted(skills))

    def pasted(self, text: str) -> str | None:
        from rift.frontends.tui.mentions import pasted_image

        return pasted_image(text, self.driver.config.cwd)

    def file_index(self) -> list[str]:
        if self._files is None:
            from rift.frontends.tui.mentions import file_index

            self._files = file_index(self.driver.config.cwd)
        return self._files

    async def pick(self, question: str, choices: Sequence[str], current: int = 0) -> str | None:
        """Show a picker and wait for the choice (call from a worker)."""
        from rift.frontends.tui.screens.picker import PickerScreen

        return await self.push_screen_wait(PickerScreen(question, choices, current=current))

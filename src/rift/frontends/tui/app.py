"""The Textual application: one chat screen, modal pickers, and the core's event worker.

Startup paints first and connects second: the screen is composed from cheap
widgets, and only after the first frame (`on_ready`) does the connect worker
import the core and bind the model. A failed bind leaves the UI open with a
banner explaining how to point rift at a server; `/host` and `/model` retry.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen

from rift import __version__
from rift.config import Config
from rift.errors import RiftError
from rift.frontends.tui.driver import Driver
from rift.frontends.tui.widgets.activity import ActivityPane
from rift.frontends.tui.widgets.composer import CommandHint, Composer, PromptInput
from rift.frontends.tui.widgets.status import StatusBar
from rift.frontends.tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from rift.core.agent import Agent
    from rift.core.events import Event, PlanItem
    from rift.core.startup import Started
    from rift.frontends.tui.view import EventView

log = logging.getLogger("rift.tui")
HERE = Path(__file__).parent
OFFLINE_HELP = (
    "Point rift at a model server:\n"
    "  • rift --host http://HOST:11434   (end the URL in /v1 for OpenAI-compatible)\n"
    "  • export RIFT_HOST=http://HOST:11434\n"
    '  • "host": "http://HOST:11434" in ~/.config/rift/config.json\n'
    "  • or type /host URL here; /model NAME picks another model"
)


class ChatScreen(Screen[None]):
    """The one working mode: transcript and activity side by side, input and status below."""

    def __init__(self, app: RiftApp) -> None:
        super().__init__(id="chat")
        self._owner = app

    def compose(self) -> ComposeResult:
        model = self._owner.driver.config.model
        with Horizontal(id="panes"):
            yield Transcript(id="transcript", banner=(__version__, model))
            yield ActivityPane(id="activity")
        yield Composer(self._owner._command_hints, self._owner._file_index, id="composer")
        yield StatusBar(id="status", model=model)

    def on_mount(self) -> None:
        self.query_one(PromptInput).focus()


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
        Binding("ctrl+c", "no_quit", show=False),  # the focused input copies first
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
        self._events: asyncio.Queue[Event] = asyncio.Queue()
        self._view: EventView | None = None
        self._files: list[str] | None = None
        self.chat = ChatScreen(self)

    def get_default_screen(self) -> Screen[Any]:
        return self.chat

    # ----------------------------------------------------------- widgets

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
        if isinstance(text, Text):
            self.transcript.add_notice("", kind).update(text)
        else:
            self.transcript.add_notice(text, kind)

    # ---------------------------------------------------------- lifecycle

    @on(events.Ready)
    def _first_frame(self) -> None:
        """The first frame is on screen: now load the core and connect."""
        if self.ready_file is not None:
            stamp = f"{time.time():.6f} {time.process_time():.6f}\n"
            self.ready_file.write_text(stamp, encoding="utf-8")
            self.exit(0)
            return
        self._pump()
        self.set_interval(1.0, self.refresh_tasks)
        self._connect()

    @on(events.Unmount)
    async def _shut_down(self) -> None:
        await self.driver.close()

    @work(exclusive=True, group="connect")
    async def _connect(self) -> None:
        started = await self.driver.connect()
        if started is None:
            self._show_offline(self.driver.offline or "no model server")
            return
        await self.after_bind(started, fresh=True)

    def _show_offline(self, reason: str) -> None:
        text = Text.assemble(("No model is connected.", "bold"), "\n")
        text.append(reason + "\n\n", style="yellow")
        text.append(OFFLINE_HELP)
        self.say(text, "offline")
        self.status_bar.set(model="(offline)", text="offline — /host URL to connect")

    async def after_bind(self, started: Started, *, fresh: bool) -> None:
        """A new agent is in charge: status, resumed history, startup notices."""
        from rift.core.session import history_for  # core, loaded with the agent

        agent = started.agent
        self.status_bar.set(model=agent.model, approve=agent.approval.enabled, text="ready")
        self.emit(agent.context_gauge())
        if started.resumed and fresh:
            items = [(m.role, m.text) for m in history_for(agent.messages)]
            await self.transcript.add_history(items)
        for notice in started.notices:
            self.emit(notice)

    def require_agent(self) -> Agent:
        if self.driver.agent is None:
            raise RiftError("no model is connected — /host URL or /model NAME first")
        return self.driver.agent

    # --------------------------------------------------------- the events

    def emit(self, event: Event) -> None:
        self._events.put_nowait(event)

    @work(exclusive=True, group="events")
    async def _pump(self) -> None:
        """The core's event stream enters here, one event at a time, in order."""
        from rift.frontends.tui.view import EventView

        self._view = view = EventView(self)
        while True:
            event = await self._events.get()
            try:
                await view.show(event)
            except Exception as exc:  # a rendering bug must not stop the stream
                log.exception("rendering %s failed", type(event).__name__)
                self.say(f"internal error while showing {event.name}: {exc!r}", "error")

    # ------------------------------------------------------------- input

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

    def send_prompt(self, text: str, shown: str | None = None) -> None:
        """Send a prompt as a new turn (the core attaches its @mentions)."""
        refusal = self._refusal()
        if refusal:
            self.say(refusal, "warning")
            self.composer.input.load_text(shown if shown is not None else text)  # keep the draft
            return
        self.transcript.add_user(shown if shown is not None else text)
        self.status_bar.set(text="thinking…", rate=0.0)
        self.driver.start_turn(text)

    def _refusal(self) -> str:
        if self.driver.agent is None:
            return "! no model is connected — /host URL or /model NAME first"
        if self.driver.busy:
            return "a turn is running — Esc cancels it; your prompt is still in the box"
        return ""

    def begin_answer(self, ask_id: int, question: str) -> None:
        """A free-text ask: the input becomes the answer field (Esc skips)."""
        self.pending_answer = ask_id
        self.say(Text("? " + question, style="bold cyan"), "ask")
        prompt = self.composer.input
        prompt.placeholder = "type your answer · Enter sends · Esc skips"
        prompt.focus()

    def _finish_answer(self, text: str) -> None:
        ask_id, self.pending_answer = self.pending_answer, None
        self.composer.input.placeholder = "Ask rift to do something…  (/ commands · @ files)"
        if ask_id is not None and self.driver.agent is not None:
            self.driver.agent.broker.answer(ask_id, text)
            self.say("answer: " + (text or "(skipped)"), "info")

    # ---------------------------------------------------------- actions

    def action_cancel(self) -> None:
        if self.pending_answer is not None:
            self._finish_answer("")
        elif self.driver.cancel():
            self.status_bar.set(text="cancelling…")

    def action_toggle_diff(self) -> None:
        pane = self.activity
        pane.display = True
        pane.show_diff(not pane.showing_diff)
        self.refresh_diff()

    def action_toggle_activity(self) -> None:
        self.activity.display = not self.activity.display

    def action_no_quit(self) -> None:
        self.notify("Ctrl+C does not quit rift — use /quit", timeout=3)

    def refresh_diff(self) -> None:
        if self.activity.showing_diff:
            self._diff_worker()

    @work(exclusive=True, group="diff")
    async def _diff_worker(self) -> None:
        from rift.frontends.tui.gitdiff import git_diff

        self.activity.set_diff(await git_diff(self.driver.config.cwd))

    def refresh_tasks(self) -> None:
        agent = self.driver.agent
        if agent is not None:
            self.status_bar.set(tasks=agent.tasks.running_count)

    # ------------------------------------------------------- completions

    def _command_hints(self) -> Sequence[CommandHint]:
        from rift.frontends.tui.commands import hints

        skills = self.driver.agent.skills if self.driver.agent is not None else {}
        return hints(sorted(skills))

    def _file_index(self) -> list[str]:
        if self._files is None:
            from rift.frontends.tui.mentions import file_index

            self._files = file_index(self.driver.config.cwd)
        return self._files

    async def pick(self, question: str, choices: Sequence[str], current: int = 0) -> str | None:
        """Show a picker and wait for the choice (call from a worker)."""
        from rift.frontends.tui.screens.picker import PickerScreen

        screen = PickerScreen(question, choices, current=current)
        return await self.push_screen_wait(screen)

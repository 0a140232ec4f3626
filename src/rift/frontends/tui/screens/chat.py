"""The chat screen: transcript and activity side by side, the composer and status below.

It lays out the widgets and routes stray keys to the input; the app owns what they show."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen

from rift import __version__
from rift.frontends.tui.widgets.activity import ActivityPane
from rift.frontends.tui.widgets.composer import Composer, PromptInput
from rift.frontends.tui.widgets.status import StatusBar
from rift.frontends.tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from rift.frontends.tui.host import ChatHost


class ChatScreen(Screen[None]):
    """The one working mode: transcript and activity side by side, input and status below."""

    def __init__(self, app: ChatHost) -> None:
        super().__init__(id="chat")
        self._owner = app

    def compose(self) -> ComposeResult:
        model = self._owner.driver.config.model
        with Horizontal(id="panes"):
            yield Transcript(id="transcript", banner=(__version__, model))
            yield ActivityPane(id="activity")
        owner = self._owner
        yield Composer(owner.command_hints, owner.file_index, paste=owner.pasted, id="composer")
        yield StatusBar(id="status", model=model)

    def on_mount(self) -> None:
        self.query_one(PromptInput).focus()
        self.call_after_refresh(self._owner.replay_early_keys)

    def on_key(self, event: events.Key) -> None:
        """A key typed while focus is elsewhere (a tool line, the transcript) goes to the input."""
        prompt = self.query_one(PromptInput)
        if event.is_printable and event.character and self.focused is not prompt:
            event.stop()
            prompt.focus()
            prompt.insert(event.character)

    def on_resize(self, event: events.Resize) -> None:
        self._owner.fit_activity(event.size.width)

    def on_prompt_input_page_key(self, message: PromptInput.PageKey) -> None:
        self.query_one(Transcript).page(message.key)

"""The transcript pane: prompts, streamed Markdown replies, thinking, notices, sub-agent cards.

It is anchored to the bottom, so streaming follows the reply until the person
scrolls up, and then leaves their position alone. Replies stream through
Textual's `MarkdownStream`, which batches fragments that arrive faster than
they can be rendered; fenced code blocks are syntax-highlighted by the
Markdown widget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Collapsible, Static

from rift.frontends.tui.widgets.activity import follow_when_full
from rift.frontends.tui.widgets.cards import SubagentCard

if TYPE_CHECKING:
    from textual.widgets import Markdown
    from textual.widgets.markdown import MarkdownStream

TIPS = (
    "Enter sends · Ctrl+J newline · / commands · @ attaches a file\n"
    "Esc cancels · Ctrl+D git diff · Ctrl+L activity pane · /help · /quit"
)


def banner_text(version: str, model: str, tips: bool = True) -> Text:
    text = Text()
    text.append(" RIFT ", style="bold reverse")
    text.append(f"  v{version} · {model}", style="bold")
    if tips:
        text.append("\n" + TIPS, style="dim")
    return text


class Transcript(VerticalScroll):
    """The conversation as it happens."""

    def __init__(self, *, id: str | None = None, banner: tuple[str, str] | None = None) -> None:
        super().__init__(id=id)
        self._banner = banner
        self._reply: Markdown | None = None
        self._stream: MarkdownStream | None = None
        self._reply_text = ""
        self._thinking: Static | None = None
        self._thinking_box: Collapsible | None = None
        self._thinking_text = ""
        self._cards: dict[str, SubagentCard] = {}
        self.last_reply = ""
        """The text of the newest complete or streaming reply (for /copy)."""

    def compose(self) -> ComposeResult:
        if self._banner is not None:
            yield Static(banner_text(*self._banner), classes="banner")

    def on_mount(self) -> None:
        follow_when_full(self)

    def on_resize(self) -> None:
        follow_when_full(self)

    def _grew(self) -> None:
        self.call_after_refresh(follow_when_full, self)

    # ----------------------------------------------------------- blocks

    def add_banner(self, version: str, model: str, tips: bool = True) -> None:
        self.mount(Static(banner_text(version, model, tips), classes="banner"))
        self._grew()

    def add_user(self, text: str) -> None:
        self.mount(Static(Text("› " + text), classes="user"))
        self._grew()

    def add_notice(self, text: str, kind: str = "info") -> Static:
        """A line from rift itself: info, warning, error, command output or an offline banner."""
        notice = Static(Text(text), classes=f"notice {kind}")
        self.mount(notice)
        self._grew()
        return notice

    def add_card(self, tag: str, model: str, label: str) -> SubagentCard:
        card = SubagentCard(tag, model, label)
        self._cards[tag] = card
        self.mount(card)
        self._grew()
        return card

    def card(self, tag: str) -> SubagentCard | None:
        return self._cards.get(tag)

    # ------------------------------------------------------- streaming

    async def stream_reply(self, fragment: str) -> None:
        """Append reply text, opening a new reply block when none is streaming."""
        if self._stream is None:
            self._close_thinking()
            # Imported here, not at module level: markdown-it costs ~90 ms and the
            # first paint must not wait for it (bench/tui_startup.py).
            from textual.widgets import Markdown

            self._reply = Markdown(classes="reply")
            self._reply_text = ""
            await self.mount(self._reply)
            self._stream = Markdown.get_stream(self._reply)
        self._reply_text += fragment
        self.last_reply = self._reply_text
        await self._stream.write(fragment)
        self._grew()

    def stream_thinking(self, fragment: str) -> None:
        if self._thinking is None:
            self._thinking_text = ""
            self._thinking = Static("", classes="thinking-text")
            self._thinking_box = Collapsible(
                self._thinking, title="thinking…", collapsed=False, classes="thinking"
            )
            self.mount(self._thinking_box)
        self._thinking_text += fragment
        self._thinking.update(Text(self._thinking_text, style="dim italic"))
        self._grew()

    async def end_blocks(self) -> None:
        """The streamed block is over (a tool started, the turn ended)."""
        stream, self._stream = self._stream, None
        self._reply = None
        self._close_thinking()
        if stream is not None:
            await stream.stop()

    def _close_thinking(self) -> None:
        """Thinking folds away once the model moves on; a click opens it again."""
        if self._thinking_box is not None:
            words = len(self._thinking_text.split())
            self._thinking_box.title = f"thought · {words} words"
            self._thinking_box.collapsed = True
        self._thinking = None
        self._thinking_box = None

    # --------------------------------------------------------- history

    async def add_history(self, items: list[tuple[str, str]]) -> None:
        """A resumed conversation: (role, text) pairs, replies rendered as Markdown."""
        from textual.widgets import Markdown  # lazily, as in stream_reply

        self.add_notice(f"resumed session · {len(items)} messages", "info")
        for role, text in items:
            if role == "user":
                self.add_user(text)
            else:
                await self.mount(Markdown(text, classes="reply"))
                self.last_reply = text

    async def clear_all(self) -> None:
        await self.end_blocks()
        self._cards.clear()
        await self.remove_children()

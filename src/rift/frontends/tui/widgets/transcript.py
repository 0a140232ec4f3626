"""The transcript pane: prompts, streamed Markdown replies, thinking, tool calls, notices, cards.

A resumed session shows its newest messages at once and keeps the older ones behind an
"earlier messages" line, rendered a batch at a time, so a long session opens at once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from rift.frontends.tui.widgets.activity import FollowingScroll, pending_match
from rift.frontends.tui.widgets.cards import SubagentCard
from rift.frontends.tui.widgets.toolcall import ToolCallLine

if TYPE_CHECKING:
    from textual.widgets import Markdown
    from textual.widgets.markdown import MarkdownStream

W = TypeVar("W", bound=Widget)
HISTORY_TAIL = 20
"""Messages of a resumed session rendered at once (the newest)."""
HISTORY_BATCH = 40
"""Older messages rendered per "show earlier"."""

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


class Transcript(FollowingScroll):
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
        self._older: list[tuple[str, str]] = []
        """Resumed messages not rendered yet, oldest first."""
        self._earlier: Static | None = None
        self._history_top: Widget | None = None
        self.last_reply = ""
        """The text of the newest complete or streaming reply (for /copy)."""

    def compose(self) -> ComposeResult:
        if self._banner is not None:
            yield Static(banner_text(*self._banner), classes="banner")

    def watch_virtual_size(self, old: Size, new: Size) -> None:
        """A Markdown reply lays itself out after its mount: follow every change of height."""
        if new.height != old.height:
            self._grew()

    def page(self, key: str) -> None:
        """PageUp/PageDown/Home/End, sent here from the input box."""
        if key == "pageup":
            self.scroll_page_up(animate=False)
        elif key == "pagedown":
            self.scroll_page_down(animate=False)
        elif key == "home":
            if self._older:
                self.run_worker(self.show_earlier(), group="history")
            self.scroll_home(animate=False)
        elif key == "end":
            self.scroll_end(animate=False)

    def _add(self, widget: W) -> W:
        self.mount(widget)
        self._grew()
        return widget

    def add_banner(self, version: str, model: str) -> None:
        """The banner again, without the tips (after /clear, /sessions or a rewind)."""
        self._add(Static(banner_text(version, model, tips=False), classes="banner"))

    def add_user(self, text: str) -> None:
        self._add(Static(Text("› " + text), classes="user"))

    def add_notice(self, text: str | Text, kind: str = "info") -> None:
        """A line from rift itself: info, warning, error, command output or an offline banner."""
        self._add(Static(Text(text) if isinstance(text, str) else text, classes=f"notice {kind}"))

    def add_card(self, tag: str, model: str, label: str) -> None:
        self._cards[tag] = self._add(SubagentCard(tag, model, label))

    def card(self, tag: str) -> SubagentCard | None:
        return self._cards.get(tag)

    def add_tool(self, tool: str, args: dict[str, Any], call_id: str | None) -> ToolCallLine:
        return self._add(ToolCallLine(tool, args, call_id))

    def tool_line(self, tool: str, call_id: str | None) -> ToolCallLine | None:
        """The running line a tool_result belongs to."""
        return pending_match([t for t in self.query(ToolCallLine) if t.pending], tool, call_id)

    def cancel_pending_tools(self) -> None:
        for line in self.query(ToolCallLine):
            line.cancel()

    async def stream_reply(self, fragment: str) -> None:
        """Append reply text, opening a new reply block when none is streaming."""
        if self._stream is None:
            self._close_thinking()
            from textual.widgets import Markdown  # markdown-it must not delay the first paint

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

    async def add_history(self, items: list[tuple[str, str]]) -> None:
        """A resumed conversation: (role, text) pairs, the newest rendered now, in one mount."""
        self._older = list(items[:-HISTORY_TAIL]) if len(items) > HISTORY_TAIL else []
        shown = items[len(self._older) :]
        notice = Static(Text(f"resumed session · {len(items)} messages"), classes="notice info")
        widgets: list[Widget] = [notice]
        if self._older:
            self._earlier = Static(_earlier_text(len(self._older)), classes="earlier")
            widgets.append(self._earlier)
        rendered = _history_widgets(shown)
        self._history_top = rendered[0] if rendered else None
        await self.mount(*widgets, *rendered)
        self.last_reply = next((t for r, t in reversed(shown) if r != "user"), self.last_reply)
        self._grew()

    @property
    def earlier_count(self) -> int:
        return len(self._older)

    async def show_earlier(self) -> None:
        """Render the next batch of older messages above the ones on screen."""
        if not self._older or self._history_top is None:
            return
        batch, self._older = self._older[-HISTORY_BATCH:], self._older[:-HISTORY_BATCH]
        rendered = _history_widgets(batch)
        await self.mount(*rendered, before=self._history_top)
        self._history_top = rendered[0]
        if self._earlier is not None and not self._older:
            self._earlier.remove()
            self._earlier = None
        elif self._earlier is not None:
            self._earlier.update(_earlier_text(len(self._older)))

    def on_click(self, event: events.Click) -> None:
        if self._earlier is not None and event.widget is self._earlier:
            self.run_worker(self.show_earlier(), group="history")

    async def clear_all(self) -> None:
        await self.end_blocks()
        self._cards.clear()
        self._older, self._earlier, self._history_top = [], None, None
        await self.remove_children()


def _earlier_text(n: int) -> Text:
    return Text(f"▲ {n} earlier message{'s' if n != 1 else ''} · click, or Home, to show")


class PastReply(Static):
    """A reply from a resumed session: Rich's Markdown in one widget (Textual's builds a
    widget per block, far too slow for a long resume; a finished reply needs no updates)."""

    def __init__(self, source: str) -> None:
        from rich.markdown import Markdown  # lazily, as in stream_reply

        super().__init__(Markdown(source, code_theme="monokai"), classes="reply past")
        self.source = source


def _history_widgets(items: Sequence[tuple[str, str]]) -> list[Widget]:
    return [
        Static(Text("› " + text), classes="user") if role == "user" else PastReply(text)
        for role, text in items
    ]

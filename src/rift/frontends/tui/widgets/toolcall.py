"""One tool call in the transcript: a one-line summary that opens to the call's whole output.

The body is rendered only when first opened, so each call costs one line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Static

from rift.frontends.tui.format import clip
from rift.frontends.tui.widgets.activity import MARKS, call_head, color_diff

BODY_CHAR_CAP = 200_000
"""A body past this many characters is cut (the model saw the tool's own cap anyway)."""


class ToolCallHeader(Static, can_focus=True):
    """The clickable summary line."""

    BINDINGS = [Binding("enter", "open_close", "open/close", show=False)]  # noqa: RUF012

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_open_close()

    def action_open_close(self) -> None:
        line = self.parent
        if isinstance(line, ToolCallLine):
            line.collapsed = not line.collapsed


class ToolCallLine(Vertical):
    """A tool call, matched to its result by the model's call id when the events carry one."""

    collapsed: reactive[bool] = reactive(True, init=False)

    def __init__(self, tool: str, args: dict[str, Any], call_id: str | None = None) -> None:
        super().__init__(classes="tool-line running")
        self.tool = tool
        self.call_id = call_id or None
        from rift.core import describe_call  # late: the app paints before the core loads

        self.target = clip(describe_call(tool, args).summary, 70)
        command = args.get("command") if tool == "bash" else None
        self.command = command if isinstance(command, str) else ""
        """A bash call's whole command: the summary line clips it, the body never does."""
        self.state = "running"
        self.output = ""
        self.diff: list[str] = []
        self.counts: tuple[int, int] | None = None
        self.body_text = ""
        """What the open body shows (empty until it was first opened)."""

    @property
    def pending(self) -> bool:
        return self.state == "running"

    @property
    def summary(self) -> str:
        return self._summary().plain

    def compose(self) -> ComposeResult:
        yield ToolCallHeader(self._header(), classes="tool-head")
        body = Static("", classes="tool-body")
        body.display = False
        yield body

    def finish(self, ok: bool, output: str) -> None:
        self.output = output
        self._set_state("ok" if ok else "failed")

    def cancel(self) -> None:
        if self.pending:
            self._set_state("cancelled")

    def add_diff(self, added: int, removed: int, diff: Sequence[str]) -> None:
        self.counts = (added, removed)
        self.diff = list(diff)
        self._redraw()

    def _set_state(self, state: str) -> None:
        self.remove_class(self.state)
        self.state = state
        self.add_class(state)
        self._redraw()

    def _redraw(self) -> None:
        if not self.is_mounted:
            return
        self.query_one(ToolCallHeader).update(self._header())
        if not self.collapsed:
            self._render_body()

    def watch_collapsed(self, collapsed: bool) -> None:
        self.query_one(".tool-body", Static).display = not collapsed
        self._redraw()

    def _render_body(self) -> None:
        parts: list[Text] = []
        if self.command:
            parts.append(Text("$ " + self.command, style="bold"))
        if self.output:
            shown = self.output[:BODY_CHAR_CAP]
            if len(self.output) > BODY_CHAR_CAP:
                shown += f"\n… [{len(self.output) - BODY_CHAR_CAP} more characters]"
            parts.append(Text(shown))
        elif self.pending:
            parts.append(Text("(running…)", style="dim italic"))
        if self.diff:
            parts.append(color_diff(self.diff))
        text = Text("\n").join(parts) if parts else Text("(no output)", style="dim")
        self.body_text = text.plain
        self.query_one(".tool-body", Static).update(text)

    def _header(self) -> Text:
        """The summary behind an open/closed marker (click or Enter toggles)."""
        return Text("▾ " if not self.collapsed else "▸ ", style="dim") + self._summary()

    def _summary(self) -> Text:
        text = call_head(*MARKS[self.state], self.tool, self.target)
        if self.counts is not None:
            added, removed = self.counts
            text.append_text(Text.assemble("  ", (f"+{added}", "green"), (f" -{removed}", "red")))
        if self.state == "cancelled":
            text.append("  cancelled", style="magenta")
        return text

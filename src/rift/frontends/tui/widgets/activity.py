"""The activity pane: the plan checklist pinned on top, then the tool log or a live git diff.

The tool log shows one row per call, salient argument first (`→ bash pytest
-q`), turned into `✓`/`✗` with a one-line result when the call ends, and the
coloured ± preview of every applied edit. Ctrl+D flips the lower part to the
working tree's `git diff`, which the app refreshes after edits and turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import ContentSwitcher, Static

from rift.frontends.tui.format import result_line, salient

DIFF_STYLES = (("+++", "bold"), ("---", "bold"), ("diff ", "bold"), ("@@", "cyan"))


def color_diff_line(line: str) -> Text:
    for prefix, style in DIFF_STYLES:
        if line.startswith(prefix):
            return Text(line, style=style)
    if line.startswith("+"):
        return Text(line, style="green")
    if line.startswith("-"):
        return Text(line, style="red")
    if line.startswith("…"):
        return Text(line, style="dim")
    return Text(line)


def color_diff(lines: Sequence[str]) -> Text:
    return Text("\n").join(color_diff_line(line) for line in lines)


class PlanView(Static):
    """The agent's checklist: ☑ done, ◐ the step in progress, ☐ open."""

    def set_items(self, items: Sequence[Any]) -> None:
        self.display = bool(items)
        text = Text("plan\n", style="bold")
        current = next((i for i, item in enumerate(items) if not item.done), -1)
        for i, item in enumerate(items):
            mark, style = ("☑", "dim") if item.done else ("◐", "bold") if i == current else ("☐", "")
            text.append(f"{mark} {item.text}\n", style=style)
        self.update(text.rstrip() or Text())


class ToolRow(Static):
    """One tool call: `→` while it runs, then `✓`/`✗` and its result."""

    def __init__(self, tool: str, args: dict[str, Any]) -> None:
        super().__init__(classes="tool-row running")
        self.tool = tool
        self.target = salient(tool, args, 60)
        self.pending = True
        self._result: tuple[bool, str] | None = None

    def on_mount(self) -> None:
        self._draw()

    def finish(self, ok: bool, preview: str) -> None:
        self.pending = False
        self._result = (ok, preview)
        self.remove_class("running")
        self.add_class("ok" if ok else "failed")
        if self.is_mounted:
            self._draw()

    def _draw(self) -> None:
        if self._result is None:
            self.update(self._head("→", "yellow"))
            return
        ok, preview = self._result
        text = self._head("✓", "green") if ok else self._head("✗", "red")
        text.append("\n  " + result_line(preview, 70), style="dim")
        self.update(text)

    def _head(self, mark: str, style: str) -> Text:
        text = Text(mark + " ", style=f"bold {style}")
        text.append(self.tool, style="bold")
        if self.target:
            text.append(" " + self.target)
        return text


class ToolLog(VerticalScroll):
    """Tool rows and edit previews, newest at the bottom."""

    def on_mount(self) -> None:
        self.anchor()

    def started(self, tool: str, args: dict[str, Any]) -> ToolRow:
        row = ToolRow(tool, args)
        self.mount(row)
        return row

    def finished(self, tool: str, ok: bool, preview: str) -> None:
        rows = [r for r in self.query(ToolRow) if r.pending and r.tool == tool]
        row = rows[-1] if rows else self.started(tool, {})
        row.finish(ok, preview)

    def edit_diff(self, path: str, added: int, removed: int, diff: Sequence[str]) -> None:
        text = Text(f"  {path} ", style="bold")
        text.append(f"+{added}", style="green")
        text.append(f" -{removed}", style="red")
        text.append("\n")
        text.append_text(color_diff(diff))
        self.mount(Static(text, classes="edit-diff"))

    def note(self, text: str, style: str = "dim") -> None:
        self.mount(Static(Text(text, style=style), classes="log-note"))


class DiffView(VerticalScroll):
    """The working tree's `git diff`, coloured."""

    def compose(self) -> ComposeResult:
        yield Static("(no diff yet)", id="diff-text")

    def set_diff(self, diff: str) -> None:
        body = color_diff(diff.splitlines()) if diff.strip() else Text("(no changes)", "dim")
        self.query_one("#diff-text", Static).update(body)


class ActivityPane(Vertical):
    """Plan on top; below it the tool log, or the live diff after Ctrl+D."""

    def compose(self) -> ComposeResult:
        plan = PlanView(id="plan")
        plan.display = False
        yield plan
        with ContentSwitcher(initial="log", id="activity-switcher"):
            yield ToolLog(id="log")
            yield DiffView(id="diff")

    @property
    def log_view(self) -> ToolLog:
        return self.query_one(ToolLog)

    @property
    def plan(self) -> PlanView:
        return self.query_one(PlanView)

    @property
    def showing_diff(self) -> bool:
        return self.query_one(ContentSwitcher).current == "diff"

    def show_diff(self, on: bool) -> None:
        self.query_one(ContentSwitcher).current = "diff" if on else "log"
        self.border_title = "git diff" if on else "activity"

    def set_diff(self, diff: str) -> None:
        self.query_one(DiffView).set_diff(diff)

"""The activity pane: the plan checklist pinned on top, then the tool log or a live git diff.

Ctrl+D flips the lower part between the tool log and the working tree's `git diff`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import ContentSwitcher, Static

from rift.frontends.tui.format import clip, result_line

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


def color_diff(lines: Sequence[str], indent: str = "") -> Text:
    return Text("\n").join(Text(indent) + color_diff_line(line) for line in lines)


MARKS = {
    "running": ("→", "yellow"),
    "ok": ("✓", "green"),
    "failed": ("✗", "red"),
    "cancelled": ("⊘", "magenta"),
}
"""A tool call's state → its mark and colour (the state is also the widget's CSS class)."""


class FollowingScroll(VerticalScroll):
    """A pane that follows its newest content once it overflows, until the person scrolls up."""

    def on_mount(self) -> None:
        self._follow()

    def on_resize(self) -> None:
        self._follow()

    def _follow(self) -> None:
        """Anchor to the bottom once it overflows (earlier would bottom-align a short log)."""
        if not self.is_anchored and self.max_scroll_y > 0:
            self.anchor()

    def _grew(self) -> None:
        self.call_after_refresh(self._follow)


class PlanView(Static):
    """The agent's checklist: ☑ done, ◐ the step in progress, ☐ open."""

    def set_items(self, items: Sequence[Any]) -> None:
        self.display = bool(items)
        text = Text.assemble(("plan", "bold"), "\n")
        current = next((i for i, item in enumerate(items) if not item.done), -1)
        for i, item in enumerate(items):
            if item.done:
                text.append(f"☑ {item.text}\n", style="dim")
            else:
                mark, style = ("◐", "bold") if i == current else ("☐", "")
                text.append(f"{mark} {item.text}\n", style=style)
        text.rstrip()
        self.update(text)


class ToolRow(Static):
    """One tool call: `→` while it runs, then `✓`/`✗` and its result, or `⊘` cancelled."""

    def __init__(self, tool: str, args: dict[str, Any], call_id: str | None = None) -> None:
        super().__init__(classes="tool-row running")
        self.tool = tool
        self.call_id = call_id or None
        from rift.core import describe_call  # late: the app paints before the core loads

        self.target = clip(describe_call(tool, args).summary, 60)
        self.state = "running"
        self._preview = ""

    @property
    def pending(self) -> bool:
        return self.state == "running"

    def on_mount(self) -> None:
        self._draw()

    def finish(self, ok: bool, preview: str) -> None:
        self._preview = preview
        self._set_state("ok" if ok else "failed")

    def cancel(self) -> None:
        """The turn ended (cancelled or failed) before this call reported back."""
        self._set_state("cancelled")

    def _set_state(self, state: str) -> None:
        self.remove_class(self.state)
        self.state = state
        self.add_class(state)
        if self.is_mounted:
            self._draw()

    def _draw(self) -> None:
        text = call_head(*MARKS[self.state], self.tool, self.target)
        if self.state == "cancelled":
            text.append("  cancelled", style="magenta")
        elif not self.pending:
            text.append("\n  " + result_line(self._preview, 70), style="dim")
        self.update(text)


def call_head(mark: str, style: str, tool: str, target: str) -> Text:
    """`✓ bash pytest -q`: a tool call's mark, name and clipped summary."""
    text = Text()
    text.append(mark + " ", style=f"bold {style}")
    text.append(tool, style="bold")
    if target:
        text.append(" " + target)
    return text


class _Call(Protocol):
    tool: str
    call_id: str | None


CallT = TypeVar("CallT", bound=_Call)


def pending_match(calls: Sequence[CallT], tool: str, call_id: str | None) -> CallT | None:
    """The running call a result belongs to: by the model's call id, else the newest of its tool."""
    if call_id:
        for call in calls:
            if call.call_id == call_id:
                return call
    same = [c for c in calls if c.tool == tool]
    return same[-1] if same else None


class ToolLog(FollowingScroll):
    """Tool rows and edit previews, newest at the bottom."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[str] = []
        """The log as plain text (for /copy log)."""

    def started(self, tool: str, args: dict[str, Any], call_id: str | None = None) -> ToolRow:
        row = ToolRow(tool, args, call_id)
        self.lines.append(f"→ {tool} {row.target}".rstrip())
        self.mount(row)
        self._grew()
        return row

    def finished(self, tool: str, ok: bool, preview: str, call_id: str | None = None) -> None:
        rows = [r for r in self.query(ToolRow) if r.pending]
        row = pending_match(rows, tool, call_id) or self.started(tool, {}, call_id)
        row.finish(ok, preview)
        self.lines.append(f"{'✓' if ok else '✗'} {tool}: {result_line(preview)}")

    def cancel_pending(self) -> None:
        for row in self.query(ToolRow):
            if row.pending:
                row.cancel()
                self.lines.append(f"⊘ {row.tool}: cancelled")

    def edit_diff(self, path: str, added: int, removed: int, diff: Sequence[str]) -> None:
        head = ((f"  {path} ", "bold"), (f"+{added}", "green"), (f" -{removed}", "red"), "\n")
        text = Text.assemble(*head).append_text(color_diff(diff, indent="  "))
        self.lines += [f"  {path} +{added} -{removed}", *diff]
        self.mount(Static(text, classes="edit-diff"))
        self._grew()

    def note(self, text: str, style: str = "dim") -> None:
        self.lines.append(text)
        self.mount(Static(Text(text, style=style), classes="log-note"))
        self._grew()


class DiffView(VerticalScroll):
    """The working tree's `git diff`, coloured."""

    def compose(self) -> ComposeResult:
        yield Static(Text("git diff · Ctrl+D returns to the log", style="bold"), classes="title")
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

    def set_diff(self, diff: str) -> None:
        self.query_one(DiffView).set_diff(diff)

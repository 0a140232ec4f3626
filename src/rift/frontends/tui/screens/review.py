"""Per-hunk edit review: accept or reject each change of a proposed write/edit.

Every hunk starts accepted, as in the VS Code reviewer; the screen dismisses with the
accept mask (one bool per change segment) or None (Esc: reject the whole edit)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

CONTEXT_LINES = 2
HUNK_LINE_CAP = 60


def hunk_text(segments: Sequence[dict[str, Any]], index: int) -> Text:
    """The change segment at `index` with a little unchanged context around it."""
    segment = segments[index]
    text = Text()
    if index > 0 and segments[index - 1]["same"]:
        for line in segments[index - 1]["lines"][-CONTEXT_LINES:]:
            text.append(f"  {line}\n", style="dim")
    body = [("-", line, "red") for line in segment["old"]]
    body += [("+", line, "green") for line in segment["new"]]
    for sign, line, style in body[:HUNK_LINE_CAP]:
        text.append(f"{sign} {line}\n", style=style)
    if len(body) > HUNK_LINE_CAP:
        text.append(f"… [{len(body) - HUNK_LINE_CAP} more lines]\n", style="dim")
    if index + 1 < len(segments) and segments[index + 1]["same"]:
        for line in segments[index + 1]["lines"][:CONTEXT_LINES]:
            text.append(f"  {line}\n", style="dim")
    text.rstrip()
    return text


def old_line(segments: Sequence[dict[str, Any]], index: int) -> int:
    """The 1-based line of the old file where the segment at `index` starts."""
    before = segments[:index]
    return 1 + sum(len(s["lines"] if s["same"] else s["old"]) for s in before)


class HunkView(Static):
    """One change segment and whether it is kept."""

    def __init__(self, number: int, total: int, line: int, body: Text) -> None:
        super().__init__(classes="hunk")
        self.number = number
        self.total = total
        self.line = line
        self.body = body
        self.accepted = True

    def on_mount(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        mark = ("✓ keep", "bold green") if self.accepted else ("✗ drop", "bold red")
        head = Text.assemble(
            (f"hunk {self.number}/{self.total}", "bold"), (f" · line {self.line}  ", "dim"), mark
        )
        head.append("\n")
        self.set_class(not self.accepted, "-rejected")
        self.update(head + self.body)


class ReviewScreen(ModalScreen[list[bool] | None]):
    """Review one edit_review event hunk by hunk."""

    BINDINGS = [  # noqa: RUF012 - Textual's declared shape
        Binding("up,k", "move(-1)", "previous"),
        Binding("down,j", "move(1)", "next"),
        Binding("space", "flip", "keep/drop"),
        Binding("y", "set(True)", "keep"),
        Binding("n", "set(False)", "drop"),
        Binding("a", "all(True)", "keep all"),
        Binding("r", "all(False)", "drop all"),
        Binding("enter", "apply", "apply"),
        Binding("s", "apply_session", "apply, and allow edits this session"),
        Binding("escape", "reject", "reject edit"),
    ]

    def __init__(self, review_id: int, tool: str, path: str, segments: list[dict[str, Any]]):
        super().__init__(classes="review")
        self.review_id = review_id
        self.tool = tool
        self.path = path
        self.segments = segments
        self.changes = [i for i, s in enumerate(segments) if not s["same"]]
        self.selected = 0
        self.allow_session = False
        """Set by `s`: writes and edits run unreviewed for the rest of the session."""

    def compose(self) -> ComposeResult:
        total = len(self.changes)
        with Vertical(id="dialog"):
            title = Text.assemble(("Review ", "bold"), (self.tool, "bold cyan"), " ", self.path)
            title.append(f"  · {total} hunk{'s' if total != 1 else ''}", style="dim")
            yield Static(title, id="review-title")
            with VerticalScroll(id="hunks"):
                for n, index in enumerate(self.changes, 1):
                    line = old_line(self.segments, index)
                    yield HunkView(n, total, line, hunk_text(self.segments, index))
            yield Static(
                "↑↓ hunk · space/y/n keep or drop · a/r all · Enter apply"
                " · s apply + allow edits this session · Esc reject edit",
                classes="hint",
            )

    @property
    def hunks(self) -> list[HunkView]:
        return list(self.query(HunkView))

    @property
    def mask(self) -> list[bool]:
        return [h.accepted for h in self.hunks]

    def on_mount(self) -> None:
        self._select(0)

    def _select(self, index: int) -> None:
        hunks = self.hunks
        if not hunks:
            return
        self.selected = max(0, min(index, len(hunks) - 1))
        for i, hunk in enumerate(hunks):
            hunk.set_class(i == self.selected, "-selected")
        hunks[self.selected].scroll_visible()

    def action_move(self, step: int) -> None:
        self._select(self.selected + step)

    def action_flip(self) -> None:
        if self.hunks:
            self.action_set(not self.hunks[self.selected].accepted)

    def action_set(self, accepted: bool) -> None:
        if self.hunks:
            hunk = self.hunks[self.selected]
            hunk.accepted = accepted
            hunk.redraw()
            self._select(self.selected + 1)

    def action_all(self, accepted: bool) -> None:
        for hunk in self.hunks:
            hunk.accepted = accepted
            hunk.redraw()

    def action_apply(self) -> None:
        self.dismiss(self.mask)

    def action_apply_session(self) -> None:
        self.allow_session = True
        self.dismiss(self.mask)

    def action_reject(self) -> None:
        self.dismiss(None)

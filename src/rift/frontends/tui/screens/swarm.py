"""The swarm screen: one tab per candidate of the latest race, its activity and its patch.

Opened by `/candidates`, it follows the race live and shows each patch once the race is
judged; `m` merges the selected candidate as `/merge <name>` does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePath
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Static, TabbedContent, TabPane, Tabs

from rift.frontends.tui.swarmboard import STOPPED, Entrant, SwarmBoard
from rift.frontends.tui.widgets.activity import color_diff

HINT = "m merge this candidate · ←/→ another candidate · Esc back to the chat"


def _pane_id(index: int) -> str:
    return f"candidate-{index}"


class CandidateView(VerticalScroll):
    """One candidate: how it stands, everything it did, and its patch."""

    def __init__(self, name: str, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="candidate")
        self.candidate = name

    def compose(self) -> ComposeResult:
        yield Static(classes="candidate-head")
        yield Static(classes="candidate-activity")
        yield Static(classes="candidate-diff")

    def show(self, entrant: Entrant, board: SwarmBoard) -> None:
        self.query_one(".candidate-head", Static).update(_head(entrant, board))
        lines = Text("activity\n", style="bold")
        for text, warn in entrant.lines or [("(nothing yet)", False)]:
            lines.append(text + "\n", style="yellow" if warn else "")
        self.query_one(".candidate-activity", Static).update(lines)
        self.query_one(".candidate-diff", Static).update(_diff(entrant))


def _head(entrant: Entrant, board: SwarmBoard) -> Text:
    text = Text.assemble((entrant.name, "bold"), (f" · {entrant.model or '…'} · ", "dim"))
    row = entrant.row
    if row is None:
        text.append(entrant.state if entrant.state != STOPPED else "stopped (cancelled)")
    else:
        size = f"patch {row.patch_bytes} bytes" if row.patch_bytes else "no changes"
        facts = [row.outcome, size, f"{row.seconds:.1f}s"]
        if row.tests:
            facts.insert(1, f"tests {row.tests}")
        text.append(" · ".join(facts))
    result = board.result
    if result is not None and result.winner == entrant.name:
        text.append(f"  ★ winner (judged by {result.judged_by})", style="bold green")
    return text


def _diff(entrant: Entrant) -> Text:
    title = Text("patch\n", style="bold")
    if entrant.row is None:
        wait = "(the patch shows once the race is judged)"
        return title + Text(wait if entrant.state != STOPPED else "(no patch)", style="dim")
    if not entrant.patch:
        return title + Text("(no changes)", style="dim")
    return title + color_diff(entrant.patch.splitlines())


class SwarmScreen(Screen[None]):
    """The latest race, a tab per candidate."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [Path(__file__).parent / "swarm.tcss"]
    BINDINGS = [  # noqa: RUF012 - Textual's declared shape
        Binding("m", "merge", "merge this candidate"),
        Binding("escape,q", "close", "back to the chat"),
        Binding("left", "step(-1)", "previous candidate", show=False),
        Binding("right", "step(1)", "next candidate", show=False),
    ]

    def __init__(
        self, board: SwarmBoard, patch: Callable[[str], str], merge: Callable[[str], object]
    ) -> None:
        super().__init__(id="swarm")
        self.board = board
        self._patch = patch
        self._merge = merge
        self._names: list[str] = []

    def compose(self) -> ComposeResult:
        self._names = list(self.board.entrants)
        yield Static(self._title(), id="swarm-title")
        if not self._names:
            yield Static("no swarm race yet: /swarm <task> starts one", id="swarm-empty")
        else:
            with TabbedContent(id="swarm-tabs"):
                for i, name in enumerate(self._names):
                    with TabPane(name, id=_pane_id(i)):
                        yield CandidateView(name)
        yield Static(Text(HINT, style="dim"), id="swarm-hint")

    def on_mount(self) -> None:
        self.call_after_refresh(self._drawn)  # the tabs mount in TabbedContent's own compose

    def _drawn(self) -> None:
        """Just composed: fill the tabs and give their row the keys (←/→)."""
        self.redraw()
        if self._names:
            self.query_one(Tabs).focus()

    async def _rebuild(self) -> None:
        await self.recompose()
        self.call_after_refresh(self._drawn)

    @classmethod
    def refresh_open(cls, screens: list[object]) -> None:
        """Redraw every open swarm screen in `screens` (the app's stack)."""
        for screen in screens:
            if isinstance(screen, cls) and screen.is_mounted:
                screen.redraw()

    @property
    def selected(self) -> str | None:
        """The candidate whose tab is active."""
        if not self._names:
            return None
        active = self.query_one(TabbedContent).active
        index = int(active.rsplit("-", 1)[1]) if active else 0
        return self._names[index]

    def redraw(self) -> None:
        if list(self.board.entrants) != self._names:
            self.call_later(self._rebuild)  # a new race: new candidates, new tabs
            return
        self.query_one("#swarm-title", Static).update(self._title())
        try:
            tabs = self.query_one(TabbedContent)
            for i, name in enumerate(self._names):
                entrant = self.board.entrants[name]
                if entrant.row is not None and entrant.row.patch_bytes and entrant.patch is None:
                    entrant.patch = self._patch(name)
                tabs.get_tab(_pane_id(i)).label = f"{entrant.mark} {name}"
                tabs.get_pane(_pane_id(i)).query_one(CandidateView).show(entrant, self.board)
        except NoMatches:
            return  # still being composed: `_drawn` draws it once it is

    def _title(self) -> Text:
        board = self.board
        text = Text.assemble(("swarm", "bold magenta"), " · ", board.task or "(no race yet)")
        result = board.result
        if result is not None:
            verdict = result.winner or "none"
            text.append(f"\nJUDGE: winner={verdict} (judged by {result.judged_by})", style="bold")
            if result.note:
                text.append(f" · {result.note}", style="dim")
        return text

    def action_step(self, delta: int) -> None:
        if self._names:
            tabs = self.query_one(Tabs)
            tabs.action_next_tab() if delta > 0 else tabs.action_previous_tab()

    def action_merge(self) -> None:
        """Merge the selected candidate (as `/merge <name>`); the outcome shows in the chat."""
        name = self.selected
        if name is None:
            self.notify("no candidate to merge", severity="warning")
            return
        self.dismiss(None)
        self._merge(name)

    def action_close(self) -> None:
        self.dismiss(None)

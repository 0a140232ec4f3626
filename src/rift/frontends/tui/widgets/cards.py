"""A live card for one sub-agent: who it is, what it is doing now, how it ended."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

RECENT_LINES = 3


class SubagentCard(Static):
    """Fed by subagent_started / subagent / subagent_finished events with one tag."""

    def __init__(self, tag: str, model: str, label: str) -> None:
        super().__init__(classes="card running")
        self.tag = tag
        self.model = model
        self.label = label
        self.lines: list[tuple[str, bool]] = []
        self.state = "running…"

    def on_mount(self) -> None:
        self._redraw()

    def activity(self, text: str, warn: bool) -> None:
        self.lines = [*self.lines, (text, warn)][-RECENT_LINES:]
        self._redraw()

    def finish(self, steps: int) -> None:
        self.state = f"done · {steps} step{'s' if steps != 1 else ''}"
        self.remove_class("running")
        self.add_class("finished")
        self._redraw()

    def _redraw(self) -> None:
        text = Text()
        text.append("◆ ", style="bold magenta")
        text.append(self.tag, style="bold")
        text.append(f" · {self.model} · ", style="dim")
        text.append(self.label)
        text.append(f"  {self.state}", style="dim italic")
        for line, warn in self.lines:
            first = line.splitlines()[0][:110] if line.strip() else ""
            text.append("\n  " + first, style="yellow" if warn else "")
        self.update(text)

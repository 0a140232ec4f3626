"""The status bar: model, context gauge, live tok/s, background tasks, approval, status text."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from rich.text import Text
from textual.widgets import Static

from rift.frontends.tui.format import gauge

LEVEL_STYLES = {"green": "green", "amber": "yellow", "red": "bold red"}


@dataclass(frozen=True, slots=True)
class StatusState:
    model: str = "(no model)"
    used: int = 0
    limit: int = 0
    rate: float = 0.0
    tasks: int = 0
    approve: bool = True
    text: str = "starting…"


class StatusBar(Static):
    """One line at the bottom; `set(field=value, ...)` redraws it."""

    def __init__(self, *, id: str | None = None, model: str = "(no model)") -> None:
        super().__init__(id=id)
        self.state = StatusState(model=model, text="connecting…")

    def on_mount(self) -> None:
        self._draw()

    def set(self, **changes: Any) -> None:
        state = replace(self.state, **changes)
        if state != self.state:
            self.state = state
            self._draw()

    def _draw(self) -> None:
        s = self.state
        sep = (" │ ", "dim")
        parts: list[tuple[str, str]] = [(f" {s.model} ", "bold reverse")]
        if s.limit:
            label, level = gauge(s.used, s.limit)
            parts += [sep, (label, LEVEL_STYLES[level])]
        if s.rate >= 0.05:
            parts += [sep, (f"{s.rate:.1f} tok/s", "")]
        if s.tasks:
            parts += [sep, (f"{s.tasks} bg task{'s' if s.tasks != 1 else ''} running", "cyan")]
        parts += [sep, ("approve: on", "") if s.approve else ("yolo: approval off", "magenta")]
        parts += [sep, (s.text, "dim italic")]
        self.update(Text.assemble(*parts))

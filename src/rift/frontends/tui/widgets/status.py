"""The status bar: model, context gauge, live tok/s, background tasks, approval mode, phase.

While a turn runs it shows a spinner, the elapsed seconds and the phase, so a slow local
model never looks like a hung one."""

from __future__ import annotations

import time
from typing import Any

from msgspec import Struct
from msgspec.structs import replace
from rich.text import Text
from textual.widgets import Static

from rift.frontends.tui.format import gauge

LEVEL_STYLES = {"green": "green", "amber": "yellow", "red": "bold red"}
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
MODE_LABELS = {
    "ask": ("approve: on", ""),
    "auto": ("yolo: approval off", "magenta"),
    "plan": ("mode: plan", "cyan"),
    "accept-edits": ("mode: accept-edits", "yellow"),
}


class StatusState(Struct, frozen=True):
    model: str = "(no model)"
    used: int = 0
    limit: int = 0
    rate: float = 0.0
    tasks: int = 0
    mode: str = "ask"
    """The approval mode (core/permissions/gate.py MODES)."""
    text: str = "starting…"
    phase: str = ""
    """What the running turn is doing; empty when no turn runs."""
    started: float | None = None
    """`time.monotonic()` when the running turn was sent."""
    queued: int = 0


class StatusBar(Static):
    """One line at the bottom; `set(field=value, ...)` redraws it."""

    def __init__(self, *, id: str | None = None, model: str = "(no model)") -> None:
        super().__init__(id=id)
        self.state = StatusState(model=model, text="connecting…")
        self._frame = 0

    def on_mount(self) -> None:
        self._draw()

    def set(self, **changes: Any) -> None:
        state = replace(self.state, **changes)
        if state != self.state:
            self.state = state
            self._draw()

    def begin_turn(self, phase: str) -> None:
        self.set(started=time.monotonic(), phase=phase, text=phase, rate=0.0)

    def end_turn(self, text: str = "ready") -> None:
        self.set(started=None, phase="", text=text)

    def tick(self) -> None:
        """Advance the spinner and the elapsed seconds (only while a turn runs)."""
        if self.state.started is not None:
            self._frame = (self._frame + 1) % len(SPINNER)
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
        parts += [sep, MODE_LABELS.get(s.mode, (f"mode: {s.mode}", "yellow"))]
        if s.queued:
            parts += [sep, (f"{s.queued} queued", "cyan")]
        if s.started is not None:
            elapsed = int(time.monotonic() - s.started)
            parts += [sep, (f"{SPINNER[self._frame]} {elapsed}s · {s.phase}", "italic")]
        else:
            parts += [sep, (s.text, "dim italic")]
        self.update(Text.assemble(*parts))

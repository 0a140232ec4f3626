"""What the TUI knows of the latest swarm race, from its events alone.

Sub-agent events whose tag is not a candidate of the race (the `agent` tool's helpers)
are not the board's. Plain data, no Textual: the view feeds it, screens/swarm.py draws it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct, field

if TYPE_CHECKING:
    from rift.events import (
        SubagentActivity,
        SubagentFinished,
        SubagentStarted,
        SwarmCandidate,
        SwarmResult,
        SwarmStarted,
    )

WAITING, RUNNING, FINISHED, STOPPED = "waiting", "running", "finished", "stopped"


class Entrant(Struct, dict=True):
    """One candidate as the board shows it."""

    name: str
    model: str = ""
    state: str = WAITING
    steps: int = 0
    lines: list[tuple[str, bool]] = field(default_factory=list)
    """Every activity line (text, is it a warning), oldest first."""
    row: SwarmCandidate | None = None
    """Its row of the verdict, once the race is judged."""
    patch: str | None = None
    """Its patch, read once the race is judged (None: not read yet)."""

    @property
    def mark(self) -> str:
        """A one-character state for the candidate's tab."""
        if self.state == STOPPED:
            return "⊘"
        if self.row is None:
            return {RUNNING: "◐", FINISHED: "●"}.get(self.state, "○")
        tests_ok = not self.row.tests or self.row.tests_green
        return "✓" if self.row.outcome == "answered" and tests_ok else "✗"


class SwarmBoard(Struct, dict=True):
    """The latest race: its task, candidates in start order, and its verdict."""

    task: str = ""
    entrants: dict[str, Entrant] = field(default_factory=dict)
    result: SwarmResult | None = None
    over: bool = False
    """No more events will come for this race (judged, cancelled or failed)."""

    def begin(self, event: SwarmStarted) -> None:
        self.task = event.task
        self.entrants = {name: Entrant(name) for name in event.candidates}
        self.result = None
        self.over = False

    def started(self, event: SubagentStarted) -> bool:
        """Whether the sub-agent is one of this race's candidates (then noted)."""
        entrant = self._live(event.tag)
        if entrant is not None:
            entrant.model = event.model
            if entrant.state != STOPPED:  # an event that lagged behind the cancel
                entrant.state = RUNNING
        return entrant is not None

    def activity(self, event: SubagentActivity) -> bool:
        entrant = self._live(event.tag)
        if entrant is not None:
            entrant.lines.append((event.text, event.warn))
        return entrant is not None

    def finished(self, event: SubagentFinished) -> bool:
        entrant = self._live(event.tag)
        if entrant is not None:
            entrant.state = FINISHED
            entrant.steps = event.steps
        return entrant is not None

    def judged(self, event: SwarmResult) -> None:
        self.result = event
        self.over = True
        for row in event.candidates:
            entrant = self.entrants.setdefault(row.name, Entrant(row.name, row.model))
            entrant.row = row
            entrant.state = FINISHED

    def stop(self) -> bool:
        """The race ended without a verdict (cancelled): candidates still waiting or running
        are stopped (a late `subagent_finished` still counts). True when that changed any."""
        changed = False
        for entrant in self.entrants.values() if not self.over else ():
            if entrant.state in (WAITING, RUNNING):
                entrant.state = STOPPED
                changed = True
        return changed

    def _live(self, tag: str) -> Entrant | None:
        return None if self.over else self.entrants.get(tag)

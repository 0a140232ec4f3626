"""Failures in a row: a nudge at the fourth, the turn stopped at the seventh; and the
warning two iterations before the budget runs out.

For every model: a loop of failing calls burns the iteration budget and the
person's time, whatever the model's size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rift.core.loop import hardening
from rift.core.loop.parts import Part, Turn
from rift.models.base import ToolCall

if TYPE_CHECKING:
    from rift.tools.base import ToolOutput

STUCK_NUDGE_AT, STUCK_STOP_AT = 4, 7


class TurnStopped(Exception):
    """Ends the turn early with a reason shown as a warning."""


class Stuck(Part):
    """Counts failed calls in a row; resets on a success."""

    def __init__(self) -> None:
        self._failures = 0
        self._nudge_due = False

    async def before_request(self, turn: Turn, n: int) -> None:
        if self._nudge_due:  # after every result: tool messages must follow their call
            self._nudge_due = False
            turn.say(hardening.STUCK_NUDGE)
        budget = turn.s.max_iterations
        if n == budget - 2 and budget >= 3:
            turn.say(hardening.WRAP_UP_WARNING)

    async def after_tool_result(self, turn: Turn, call: ToolCall, output: ToolOutput) -> bool:
        if output.ok:
            self._failures = 0
            return False
        self._failures += 1
        turn.counters["tool_errors"] += 1
        if self._failures == STUCK_NUDGE_AT:
            self._nudge_due = True
        if self._failures >= STUCK_STOP_AT:
            raise TurnStopped(f"stopping the turn: {STUCK_STOP_AT} tool calls in a row failed")
        return False

"""The repeated-call refusal: the same call a fourth time is not run again.

A small model that gets an error it does not understand sends the same call again,
and again; each costs a request and changes nothing. From the third repeat on the
call is refused with a sentence that tells the model to try something else, and the
person is warned once per call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rift.core.loop import hardening
from rift.core.loop.parts import Part, Turn
from rift.events import Warning
from rift.models.base import ToolCall

if TYPE_CHECKING:
    from rift.tools.base import Tool


class RepeatedCalls(Part):
    """Counts identical calls (tool and arguments) for the whole turn."""

    def __init__(self) -> None:
        self._seen = hardening.RepeatGuard()

    async def before_tool(self, turn: Turn, call: ToolCall, tool: Tool) -> str | None:
        seen = self._seen.count(tool.name, call.arguments or {})
        if seen < 3:
            return None
        turn.counters["doom_loop_trips"] += 1
        if seen == 3:
            turn.emit(Warning(hardening.repeat_warning(tool.name)))
        return hardening.REPEAT_REFUSAL

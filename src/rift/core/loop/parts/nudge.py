"""A change shown instead of made: asked for once, then (headless) one greedy retry.

Small models answer "change f to …" with the new code in a fenced block and no
call. The signal is the reply itself, never the task's words: a reply that shows
code, in a turn that changed nothing and offered tools, gets one message that
leaves the choice to the model ("make it with the tools, or give your final
answer"). Headless, when that also gets no call, the turn is cut back to its
prompt and re-run once at temperature 0 (sampling noise is a common reason a
small model answers in prose instead of acting).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rift.core.loop import hardening
from rift.core.loop.parts import Part, Turn
from rift.events import Info

if TYPE_CHECKING:
    from rift.core.loop.reply import Reply

_CODE_BLOCK = re.compile(r"```[^\n]*\n[^\n]*\S[^\n]*\n(?:.*?\n)?```", re.DOTALL)
"""A fenced block with at least one line in it: code shown rather than written."""


class ApplyNudge(Part):
    """Once per turn: a reply that shows code without changing anything."""

    def __init__(self) -> None:
        self._nudged = False
        self.greedy = False
        """The turn was cut back and runs at temperature 0 (the turn reads this)."""

    async def before_end(self, turn: Turn, reply: Reply) -> bool:
        if turn.changed or turn.refused_by_person() or "edit" not in turn.s.tools:
            return False
        if not self._nudged and _CODE_BLOCK.search(reply.content):
            self._nudged = True
            turn.counters["apply_nudges"] += 1
            turn.say(hardening.APPLY_NUDGE)
            turn.emit(Info(hardening.APPLY_NUDGE_NOTICE))
            return True
        retry = self._nudged and not self.greedy and turn.s.headless
        if retry and not turn.model_called_tools() and turn.cut_back_to_prompt():
            self.greedy = True
            turn.counters["greedy_retries"] += 1
            return True
        return False

"""Repairs as parts: each small-model repair is one object behind one small protocol.

A turn (core/loop/turn.py) keeps the loop; what it does beyond "ask, run the calls,
feed the results back" lives in parts, chosen by the model's profile
(core/loop/profile.py) when the turn is built. Each part may act at five points:

- `before_request`: before each model request (read the named files, ask for a
  file whole, a nudge that is due);
- `after_reply`: the model's reply, before its calls run (settle a whole-file
  write, drop calls a whole-file request does not admit);
- `before_tool`: a call about to run; a string refuses it (a repeated call) —
  also where the checks take their "before" reading;
- `after_tool_result`: a call's result (count failures, note a landed rewrite);
  True when this step should end the model's part of the turn;
- `before_end`: the turn is about to end; True when the part sent it on (the
  project's checks failed, a change was described but not made).

Parts never read the user's words to decide anything: files, results and the
model's own output decide.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

from rift.models.base import Message, ToolCall

if TYPE_CHECKING:
    from rift.checks.results import CheckResult
    from rift.core.loop.reply import Reply
    from rift.core.loop.setup import TurnSetup
    from rift.events import Event
    from rift.tools.base import Tool, ToolOutput

P = TypeVar("P", bound="Part")


class Turn(Protocol):
    """What a part may use of the turn (core/loop/turn.py), declared here so the parts
    never import the loop that runs them."""

    s: TurnSetup
    messages: list[Message]
    emit: Callable[[Event], None]
    parts: Parts
    words: str
    changed: bool
    counters: Counter[str]

    @property
    def checks(self) -> CheckResult | None: ...
    def say(self, text: str) -> None: ...
    def note(self, text: str) -> None: ...
    def answer(self, text: str) -> None: ...
    def refused_by_person(self) -> bool: ...
    def model_called_tools(self) -> bool: ...
    def cut_back_to_prompt(self) -> bool: ...
    async def call(self, name: str, arguments: dict[str, object]) -> ToolOutput: ...
    def record_assistant(self, reply: Reply) -> None: ...
    async def execute(
        self,
        call: ToolCall,
        *,
        record: bool = True,
        shown: Callable[[str], str] | None = None,
    ) -> ToolOutput: ...


class Part:
    """A repair's hooks; each defaults to doing nothing."""

    async def before_request(self, turn: Turn, n: int) -> None:
        """Before the `n`th model request of the turn."""

    def after_reply(self, turn: Turn, reply: Reply) -> Reply:
        """The model's reply, before it is recorded and its calls run."""
        return reply

    async def before_tool(self, turn: Turn, call: ToolCall, tool: Tool) -> str | None:
        """A refusal for this call (the model reads it as the call's error), or None."""
        return None

    async def after_tool_result(self, turn: Turn, call: ToolCall, output: ToolOutput) -> bool:
        """True: this step's calls end the model's part of the turn (no further request)."""
        return False

    async def before_end(self, turn: Turn, reply: Reply) -> bool:
        """True when the part sent the turn on (it added a message for the model)."""
        return False


class Parts:
    """A turn's parts in order; each hook runs them first to last."""

    def __init__(self, parts: list[Part]) -> None:
        self.items = parts

    def find(self, kind: type[P]) -> P | None:
        return next((p for p in self.items if isinstance(p, kind)), None)

    async def before_request(self, turn: Turn, n: int) -> None:
        for part in self.items:
            await part.before_request(turn, n)

    def after_reply(self, turn: Turn, reply: Reply) -> Reply:
        for part in self.items:
            reply = part.after_reply(turn, reply)
        return reply

    async def before_tool(self, turn: Turn, call: ToolCall, tool: Tool) -> str | None:
        for part in self.items:
            refusal = await part.before_tool(turn, call, tool)
            if refusal is not None:
                return refusal
        return None

    async def after_tool_result(self, turn: Turn, call: ToolCall, output: ToolOutput) -> bool:
        final = False
        for part in self.items:
            final = await part.after_tool_result(turn, call, output) or final
        return final

    async def before_end(self, turn: Turn, reply: Reply) -> bool:
        for part in self.items:
            if await part.before_end(turn, reply):
                return True
        return False

"""Read the files the task names before the model's first request (small models).

The finding is core/loop/preread.py (plain file names that exist in the project,
never a decision over the task's words): a path the user typed is the same in every
language. The `read` runs as if the model had asked for it, so its events show and
the Read rules apply.
"""

from __future__ import annotations

from rift.core.loop import preread
from rift.core.loop.parts import Part, Turn
from rift.core.loop.reply import Reply
from rift.models.base import ToolCall


class Preread(Part):
    """Runs `read` on the named files at the first step; `paths` are what it read."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def before_request(self, turn: Turn, n: int) -> None:
        if n != 1 or "read" not in turn.s.tools:
            return
        ctx = turn.s.ctx
        paths = preread.named_files(turn.words, ctx.cwd, ctx.gate.check_read)
        calls = [
            ToolCall(id=f"{preread.PREREAD_ID}{i}", name="read", arguments={"path": path})
            for i, path in enumerate(paths, 1)
        ]
        if not calls:
            return
        turn.record_assistant(Reply(calls=calls))
        for call in calls:
            await turn.execute(call)
        self.paths = paths

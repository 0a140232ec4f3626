"""What a turn runs on (`TurnSetup`).

Apart from core/loop/turn.py so that the runtime and the sub-agent runner can
hold a setup without importing the loop itself: the loop (turn, reply, the
whole-file format, the checks after edits) loads with the first prompt, not at
every start (`rift --serve` spawn to `ready`, issue 28). The sizes of what its
events carry, which replay shares, are in rift/events/turn.py.
"""

from __future__ import annotations

from collections.abc import Mapping

from msgspec import Struct, field

from rift.core.context.budget import TokenMeter
from rift.core.loop.profile import LoopProfile
from rift.models.base import Provider, Reasoning
from rift.tools.base import Tool, ToolContext


class TurnSetup(Struct, dict=True):
    """What a turn runs on; the agent rebuilds it when the model or tools change."""

    provider: Provider
    model: str
    num_ctx: int
    temperature: float
    think: Reasoning
    tools: Mapping[str, Tool]
    ctx: ToolContext
    meter: TokenMeter
    max_iterations: int
    lean_schema: bool = False
    detect_truncation: bool = False
    headless: bool = False
    """Nobody is watching: a turn that never calls a tool gets one greedy retry."""
    profile: LoopProfile = field(default_factory=LoopProfile)
    """What the loop does for this model (core/loop/profile.py): its parts, rounds, formats."""
    slots: int | None = None
    """Requests the server runs at once (llama.cpp's `-np`), where it says; sub-agents
    are capped to it (core/loop/subagents.py)."""
    slot: int | None = None
    """The slot this conversation's requests are pinned to (llama.cpp's `id_slot`):
    0 for the main conversation, another for each sub-agent; None: the server chooses."""

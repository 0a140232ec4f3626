"""A small model's turn starts with rift reading the files the task names (core/loop/preread.py).

In process, over real HTTP: the Ollama provider talks to the scripted fake model
server, the real read and edit tools run in a temp project, and only the
permission gate is the recording double of its protocol.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tooldoubles import RecordingGate

from rift.core.context.budget import TokenMeter
from rift.core.loop.profile import LoopProfile
from rift.core.loop.setup import TurnSetup
from rift.core.loop.turn import Turn
from rift.events import Event, Iteration, ToolResult, ToolStart
from rift.models.ollama import OllamaProvider
from rift.tools import builtin_tools
from rift.tools.base import ToolContext

STATS = 'def max_of(items):\n    """The largest item."""\n    return min(items)\n'
TASK = "max_of in stats.py returns the smallest item instead of the largest. Fix it."
EDIT = {"path": "stats.py", "old_string": "return min(items)", "new_string": "return max(items)"}


def run_turn(proj: Path, ctx: ToolContext, server: Any, preread: bool) -> list[Event]:
    events: list[Event] = []

    async def go() -> None:
        provider = OllamaProvider(server.url)
        tools = {name: builtin_tools()[name] for name in ("read", "edit")}
        setup = TurnSetup(
            provider=provider,
            model="fake-model",
            num_ctx=8192,
            temperature=0.2,
            think=None,
            tools=tools,
            ctx=ctx,
            meter=TokenMeter(),
            max_iterations=6,
            profile=LoopProfile(preread=preread),
        )
        await Turn(setup, [{"role": "system", "content": "sys"}], events.append).run(TASK)
        await provider.aclose()

    asyncio.run(go())
    return events


def script() -> dict[str, Any]:
    return {"turns": [{"tool_calls": [{"name": "edit", "arguments": EDIT}]}, {"content": "done"}]}


def test_the_named_file_is_read_before_the_first_request(
    proj: Path, ctx: ToolContext, fake_server: Any
) -> None:
    (proj / "stats.py").write_text(STATS)
    server = fake_server(script())
    events = run_turn(proj, ctx, server, preread=True)
    starts = [e for e in events if isinstance(e, ToolStart)]
    assert [(e.tool, e.args, e.id) for e in starts[:1]] == [
        ("read", {"path": "stats.py"}, "preread_1")
    ]
    assert isinstance(events[0], Iteration) and events[1] == starts[0]  # inside iteration 1
    first = server.chat_requests()[0]["messages"]
    assert first[-2]["tool_calls"][0]["function"]["name"] == "read"
    assert "return min(items)" in first[-1]["content"]  # the model saw the file at once
    assert (proj / "stats.py").read_text() == STATS.replace("min", "max")
    assert len(server.chat_requests()) == 2  # edit, then the answer: no read request


def test_without_it_or_for_a_denied_file_nothing_is_read(
    proj: Path, ctx: ToolContext, gate: RecordingGate, fake_server: Any
) -> None:
    (proj / "stats.py").write_text(STATS)
    plain = run_turn(proj, ctx, fake_server(script()), preread=False)
    assert not any(isinstance(e, ToolStart) and e.tool == "read" for e in plain)
    (proj / "stats.py").write_text(STATS)
    gate.denied_paths.add(proj.resolve() / "stats.py")
    denied = run_turn(proj, ctx, fake_server(script()), preread=True)
    assert not any(isinstance(e, ToolResult) and e.tool == "read" for e in denied)

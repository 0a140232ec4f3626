"""session/load replays the whole conversation as it was shown live: prompts, tool
calls with their results, an edit's diff and location, the plan, and the replies."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import text_block
from acp_harness import Recorder, connect, run

FRONTENDS = Path(__file__).resolve().parents[2] / "src" / "rift" / "frontends" / "acp"


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_load_replays_tool_calls_diffs_and_the_plan(project: Path, fake_server: Any) -> None:
    (project / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    server = fake_server(
        {
            "turns": [
                _call("plan", set=["read the notes", "fix beta"]),
                _call("read", path="notes.txt"),
                _call("edit", path="notes.txt", old_string="beta", new_string="BETA"),
                _call("plan", done=2),
                {"content": "Fixed beta."},
            ]
        }
    )

    live = Recorder(answers=["allow_once"])

    async def first() -> str:
        async with connect(live, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.prompt(session_id=sid, prompt=[text_block("fix the notes")])
            return str(sid)

    sid = run(first())
    recorder = Recorder()

    async def load() -> None:
        async with connect(recorder, project, server) as rift:
            await rift.conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[])

    run(load())
    assert recorder.text("user_message_chunk") == "fix the notes"
    assert recorder.text() == "Fixed beta."
    calls = list(recorder.tool_calls().values())
    assert [c[0].title for c in calls] == [
        "Update the plan",
        "Read notes.txt",
        "Edit notes.txt",
        "Update the plan",
    ]
    assert all(c[-1].status == "completed" for c in calls)
    read = calls[1]
    assert read[0].locations[0].path == str(project / "notes.txt")
    assert "gamma" in read[-1].content[0].content.text and "gamma" in str(read[-1].raw_output)
    edit = calls[2][-1]
    diff = edit.content[0]
    assert diff.type == "diff" and diff.path == str(project / "notes.txt")
    assert (diff.old_text, diff.new_text) == ("beta\n", "BETA\n")
    shown = [[(e.content, e.status) for e in p.entries] for p in recorder.of("plan")]
    assert shown == [[(e.content, e.status) for e in p.entries] for p in live.of("plan")]
    assert shown[-1] == [("read the notes", "in_progress"), ("fix beta", "completed")]
    order = [u.session_update for u in recorder.updates]
    assert order.index("user_message_chunk") < order.index("tool_call")
    assert order.index("plan") < order.index("agent_message_chunk")


def test_the_acp_adapter_never_reaches_into_the_agent() -> None:
    """Everything goes through the conversation owner (core/conversation/owner.py)."""
    pattern = re.compile(r"\bagent\.(messages|journal|binding|ctx)\b")
    offenders = [
        f"{path.name}:{n}"
        for path in sorted(FRONTENDS.glob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert not offenders, offenders


def test_replay_pairs_results_without_ids_in_order() -> None:
    """A live session whose model gave no call ids still replays each result with its call."""
    from rift.core.sessions.replay import Prompt, replay
    from rift.events import EditDiff, ToolResult, ToolStart

    def call(name: str, **arguments: Any) -> dict[str, Any]:
        return {"id": "", "function": {"name": name, "arguments": arguments}}

    messages: list[Any] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                call("read", path="a.txt"),
                call("edit", path="a.txt", old_string="x", new_string="y"),
                call("ls", path="."),
            ],
        },
        {"role": "tool", "content": "1\tx", "tool_name": "read"},
        {"role": "tool", "content": "Edited a.txt (1 replacement)", "tool_name": "edit"},
        {"role": "user", "content": "next"},
    ]
    events = replay(messages)
    assert events[0] == Prompt("go") and events[-1] == Prompt("next")
    kinds = [type(e).__name__ for e in events[1:-1]]
    assert kinds == ["ToolStart", "ToolResult", "ToolStart", "ToolResult", "EditDiff", "ToolStart"]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [r.output for r in results] == ["1\tx", "Edited a.txt (1 replacement)"]
    (diff,) = [e for e in events if isinstance(e, EditDiff)]
    assert diff.diff == ["-x", "+y"] and (diff.added, diff.removed) == (1, 1)
    assert isinstance(events[-2], ToolStart) and events[-2].tool == "ls"

"""What a session announces on its own: the `/` commands after session/new and
session/load (skills, plugin commands, rift's own), the context gauge as
`usage_update`, and the title as `session_info_update`; and rift's `/undo` run
from the editor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import text_block
from acp_harness import Recorder, connect, run

from rift.core import for_face

OWN = ["undo", "rewind", "compact", "clear"]  # the core registry's order


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def _position(messages: list[dict[str, Any]], predicate: Any) -> int:
    return next(n for n, m in enumerate(messages) if predicate(m))


def test_commands_follow_the_new_session_response(project: Path, fake_server: Any) -> None:
    skill = project / ".rift" / "skills" / "review" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\ndescription: review the diff\n---\nLook at the diff.\n")
    server = fake_server({"turns": []})
    recorder = Recorder()

    async def scenario() -> list[dict[str, Any]]:
        async with connect(recorder, project, server) as rift:
            await rift.conn.new_session(cwd=str(project), mcp_servers=[])
            await recorder.wait_for(lambda: recorder.of("available_commands_update"))
            await recorder.wait_for(lambda: recorder.of("usage_update"))
            return rift.checker.from_rift

    wire = run(scenario())
    (update,) = recorder.of("available_commands_update")
    names = [c.name for c in update.available_commands]
    own = [spec.name for spec in for_face("acp")]  # rift's own first, in the registry's order
    assert set(OWN) <= set(own) and names[: len(own)] == own and "review" in names
    review = next(c for c in update.available_commands if c.name == "review")
    assert review.description == "review the diff" and review.input is not None
    (usage,) = recorder.of("usage_update")
    assert usage.size == 32768 and 0 < usage.used < usage.size
    response = _position(wire, lambda m: "sessionId" in (m.get("result") or {}))
    announced = _position(
        wire,
        lambda m: (
            m.get("params", {}).get("update", {}).get("sessionUpdate")
            == "available_commands_update"
        ),
    )
    assert response < announced


def test_a_turn_updates_the_gauge_and_names_the_session(project: Path, fake_server: Any) -> None:
    server = fake_server({"turns": [{"content": "hello"}, {"content": "again"}]})
    recorder = Recorder()

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await recorder.wait_for(lambda: recorder.of("usage_update"))
            before = recorder.of("usage_update")[-1].used
            await rift.conn.prompt(session_id=sid, prompt=[text_block("fix the parser\nplease")])
            assert recorder.of("usage_update")[-1].used > before
            (info,) = recorder.of("session_info_update")
            assert info.title == "fix the parser" and info.updated_at
            await rift.conn.prompt(session_id=sid, prompt=[text_block("and more")])
            assert len(recorder.of("session_info_update")) == 1  # the title stays

    run(scenario())


def test_undo_from_the_editor(project: Path, fake_server: Any) -> None:
    server = fake_server(
        {"turns": [_call("write", path="a.txt", content="new\n"), {"content": "ok"}]}
    )
    (project / "a.txt").write_text("old\n")
    recorder = Recorder(answers=["allow_once"])

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.prompt(session_id=sid, prompt=[text_block("change it")])
            assert (project / "a.txt").read_text() == "new\n"
            recorder.updates.clear()
            done = await rift.conn.prompt(session_id=sid, prompt=[text_block("/undo")])
            assert done.stop_reason == "end_turn"

    run(scenario())
    assert (project / "a.txt").read_text() == "old\n"
    assert "a.txt" in recorder.text()
    assert len(server.chat_requests()) == 2  # /undo never reached the model


def test_rewind_compact_and_clear_from_the_editor(project: Path, fake_server: Any) -> None:
    server = fake_server(
        {
            "turns": [
                {"content": "one"},
                _call("write", path="b.txt", content="b\n"),
                {"content": "two"},
                {"content": "three"},
                {"content": "SUMMARY of the talk"},
                {"content": "four"},
                {"content": "five"},
            ]
        }
    )
    recorder = Recorder(answers=["allow_once"])

    def last_request() -> str:
        return str(server.chat_requests()[-1]["messages"])

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id

            async def say(text: str) -> str:
                recorder.updates.clear()
                done = await rift.conn.prompt(session_id=sid, prompt=[text_block(text)])
                assert done.stop_reason == "end_turn"
                return recorder.text()

            await say("first")
            await say("second")
            assert (project / "b.txt").exists()
            assert "rewound 1 turn" in await say("/rewind")
            assert not (project / "b.txt").exists()
            await say("third")
            assert "first" in last_request() and "second" not in last_request()
            assert "compacted" in await say("/compact")
            await say("fourth")
            assert "SUMMARY of the talk" in last_request()
            assert "fresh conversation" in await say("/clear")
            await say("fifth")
            assert "first" not in last_request() and "SUMMARY" not in last_request()

    run(scenario())

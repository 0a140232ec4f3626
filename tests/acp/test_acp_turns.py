"""How ACP turns end: cancelled (mid-stream and mid-permission), max_turn_requests,
refusal, a model error as a JSON-RPC error, and a busy session refusing a second prompt."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import RequestError, text_block
from acp_harness import CANCEL, HANG, Recorder, connect, run


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_cancel_mid_stream_answers_cancelled(project: Path, fake_server: Any) -> None:
    server = fake_server(
        {
            "turns": [
                {"content": "working", "never_end": " .", "chunk_delay": 0.05},
                {"content": "fresh answer"},
            ]
        }
    )
    recorder = Recorder()

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            turn = asyncio.create_task(
                rift.conn.prompt(session_id=sid, prompt=[text_block("long job")])
            )
            await recorder.wait_for(lambda: "working" in recorder.text())
            with pytest.raises(RequestError):  # one turn at a time per session
                await rift.conn.prompt(session_id=sid, prompt=[text_block("again")])
            await rift.conn.cancel(session_id=sid)
            response = await asyncio.wait_for(turn, 10)
            assert response.stop_reason == "cancelled"
            recorder.updates.clear()
            after = await rift.conn.prompt(session_id=sid, prompt=[text_block("next")])
            assert after.stop_reason == "end_turn"

    run(scenario())
    assert recorder.text() == "fresh answer"
    note = server.chat_requests()[-1]["messages"][-1]["content"]
    assert "cancelled" in note and note.endswith("next")


def test_a_prompt_sent_right_after_cancel_runs_once_the_cancelled_turn_ends(
    project: Path, fake_server: Any
) -> None:
    server = fake_server(
        {
            "turns": [
                {"content": "working", "never_end": " .", "chunk_delay": 0.05},
                {"content": "the next one"},
            ]
        }
    )
    recorder = Recorder()

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            first = asyncio.create_task(
                rift.conn.prompt(session_id=sid, prompt=[text_block("long job")])
            )
            await recorder.wait_for(lambda: "working" in recorder.text())
            await rift.conn.cancel(session_id=sid)
            second = await rift.conn.prompt(session_id=sid, prompt=[text_block("next")])
            assert second.stop_reason == "end_turn"
            assert (await first).stop_reason == "cancelled"

    run(scenario())
    assert recorder.text().endswith("the next one")


def test_cancel_while_permission_pending_denies_and_answers_cancelled(
    project: Path, fake_server: Any
) -> None:
    server = fake_server({"turns": [_call("write", path="never.txt", content="x")]})
    recorder = Recorder(answers=[HANG])

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            turn = asyncio.create_task(
                rift.conn.prompt(session_id=sid, prompt=[text_block("write it")])
            )
            await recorder.wait_for(lambda: recorder.permissions)
            await rift.conn.cancel(session_id=sid)
            response = await asyncio.wait_for(turn, 10)
            assert response.stop_reason == "cancelled"

    run(scenario())
    assert not (project / "never.txt").exists()
    (write,) = recorder.tool_calls().values()
    assert write[-1].status == "failed"


def test_a_cancelled_permission_outcome_denies(project: Path, fake_server: Any) -> None:
    server = fake_server(
        {"turns": [_call("bash", command="echo hi > hi.txt"), {"content": "ok, not run"}]}
    )
    recorder = Recorder(answers=[CANCEL])

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            done = await rift.conn.prompt(session_id=sid, prompt=[text_block("run it")])
            assert done.stop_reason == "end_turn"

    run(scenario())
    assert not (project / "hi.txt").exists()
    assert "DENIED" in server.chat_requests()[-1]["messages"][-1]["content"]


def test_iteration_limit_is_max_turn_requests(project: Path, fake_server: Any) -> None:
    server = fake_server({"turns": [_call("ls", path=".")]})

    async def scenario() -> None:
        async with connect(Recorder(), project, server, "--max-iterations", "1") as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            done = await rift.conn.prompt(session_id=sid, prompt=[text_block("look around")])
            assert done.stop_reason == "max_turn_requests"

    run(scenario())


def test_a_turn_rift_stops_ends_the_turn_and_says_why(project: Path, fake_server: Any) -> None:
    """Never `refusal`: Zed deletes the user's message and the turn on it, while rift keeps
    the turn in the model's context."""
    turns = [_call("read", path=f"missing-{n}.txt") for n in range(8)]
    server = fake_server({"turns": [*turns, {"content": "next turn"}]})
    recorder = Recorder()

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            done = await rift.conn.prompt(session_id=sid, prompt=[text_block("read them")])
            assert done.stop_reason == "end_turn"
            assert "7 tool calls in a row failed" in recorder.text()

    run(scenario())


def test_a_rejected_change_is_not_asked_for_again_in_the_same_turn(
    project: Path, fake_server: Any
) -> None:
    write = _call("write", path="a.txt", content="hello\n")
    server = fake_server(
        {
            "turns": [
                write,
                {"content": "Here is the change:\n```\nhello\n```"},
                write,
                {"content": "left it alone"},
            ]
        }
    )
    recorder = Recorder(answers=["reject_once", "allow_once"])

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            done = await rift.conn.prompt(session_id=sid, prompt=[text_block("write a.txt")])
            assert done.stop_reason == "end_turn"

    run(scenario())
    assert len(recorder.permissions) == 1
    assert not (project / "a.txt").exists()


def test_completed_tool_calls_carry_raw_output(project: Path, fake_server: Any) -> None:
    (project / "notes.txt").write_text("alpha\nbeta\n")
    server = fake_server({"turns": [_call("read", path="notes.txt"), {"content": "read it"}]})
    recorder = Recorder()

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.prompt(session_id=sid, prompt=[text_block("read notes")])

    run(scenario())
    (read,) = recorder.tool_calls().values()
    assert read[-1].status == "completed"
    assert "beta" in str(read[-1].raw_output)


def test_a_model_error_is_a_json_rpc_error_and_the_session_goes_on(
    project: Path, fake_server: Any
) -> None:
    server = fake_server(
        {"turns": [{"status": 400, "error": "model exploded"}, {"content": "recovered"}]}
    )
    recorder = Recorder()

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            with pytest.raises(RequestError) as failed:
                await rift.conn.prompt(session_id=sid, prompt=[text_block("try")])
            assert "model exploded" in str(failed.value)
            done = await rift.conn.prompt(session_id=sid, prompt=[text_block("again")])
            assert done.stop_reason == "end_turn"

    run(scenario())
    assert recorder.text() == "recovered"


def test_a_write_that_changes_nothing_is_not_shown_as_a_new_file(
    project: Path, fake_server: Any
) -> None:
    (project / "same.txt").write_text("same\n")
    server = fake_server(
        {"turns": [_call("write", path="same.txt", content="same\n"), {"content": "ok"}]}
    )
    recorder = Recorder()

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.set_session_mode(session_id=sid, mode_id="auto")
            await rift.conn.prompt(session_id=sid, prompt=[text_block("rewrite it")])

    run(scenario())
    (write,) = recorder.tool_calls().values()
    assert write[-1].status == "completed"
    assert write[-1].content[0].type == "content"
    assert "Wrote" in write[-1].content[0].content.text


def test_a_sub_agents_ask_is_its_own_permission(project: Path, fake_server: Any) -> None:
    """Not the parent's `agent` call, and no "always deny agent" that would deny nothing."""
    server = fake_server(
        {
            "turns": [
                _call("agent", description="writer", prompt="CHILD-W write it"),
                {
                    "match": "CHILD-W",
                    "tool_calls": [
                        {"name": "write", "arguments": {"path": "n.txt", "content": "x\n"}}
                    ],
                },
                {"match": "CHILD-W", "content": "child done"},
                {"content": "ok"},
            ]
        }
    )
    recorder = Recorder(answers=["allow_once"])

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.prompt(session_id=sid, prompt=[text_block("delegate")])

    run(scenario())
    (agent,) = recorder.tool_calls().values()
    (asked, options), *_ = recorder.permissions
    assert asked.tool_call_id != agent[0].tool_call_id
    assert "n.txt" in asked.title
    assert "reject_always" not in {o.kind for o in options}
    assert (project / "n.txt").read_text() == "x\n"

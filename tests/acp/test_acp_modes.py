"""Session modes through the SDK's client: ask, accept-edits, plan and auto, and an
"always deny" that holds whatever mode the session switches to afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import text_block
from acp_harness import Recorder, connect, run


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_all_four_modes_are_offered(project: Path, fake_server: Any) -> None:
    server = fake_server({"turns": []})

    async def scenario() -> None:
        async with connect(Recorder(), project, server) as rift:
            session = await rift.conn.new_session(cwd=str(project), mcp_servers=[])
            ids = [m.id for m in session.modes.available_modes]
            assert ids == ["ask", "accept-edits", "plan", "auto"]
            option = next(o for o in session.config_options if o.id == "mode")
            assert [o.value for o in option.options] == ids

    run(scenario())


def test_accept_edits_applies_writes_and_still_asks_for_bash(
    project: Path, fake_server: Any
) -> None:
    server = fake_server(
        {
            "turns": [
                _call("write", path="a.txt", content="applied\n"),
                _call("bash", command="echo ran > ran.txt"),
                {"content": "done"},
            ]
        }
    )
    recorder = Recorder(answers=["reject_once"])

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.set_session_mode(session_id=sid, mode_id="accept-edits")
            done = await rift.conn.prompt(session_id=sid, prompt=[text_block("go")])
            assert done.stop_reason == "end_turn"

    run(scenario())
    assert (project / "a.txt").read_text() == "applied\n"
    assert not (project / "ran.txt").exists()
    (asked, _), *more = recorder.permissions
    assert not more and asked.kind == "execute"


def test_plan_mode_reads_but_never_writes_or_runs(project: Path, fake_server: Any) -> None:
    (project / "notes.txt").write_text("the plan\n")
    server = fake_server(
        {
            "turns": [
                _call("read", path="notes.txt"),
                _call("write", path="a.txt", content="no\n"),
                _call("bash", command="echo ran > ran.txt"),
                {"content": "here is my plan"},
            ]
        }
    )
    recorder = Recorder(answers=["allow_once", "allow_once"])

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            changed = await rift.conn.set_config_option(
                config_id="mode", session_id=sid, value="plan"
            )
            mode = next(o for o in changed.config_options if o.id == "mode")
            assert mode.current_value == "plan"
            await rift.conn.prompt(session_id=sid, prompt=[text_block("plan it")])

    run(scenario())
    assert recorder.permissions == []  # nothing to ask: plan mode refuses on its own
    assert not (project / "a.txt").exists() and not (project / "ran.txt").exists()
    statuses = [updates[-1].status for updates in recorder.tool_calls().values()]
    assert statuses == ["completed", "failed", "failed"]
    results = [m for m in server.chat_requests()[-1]["messages"] if m["role"] == "tool"]
    assert "the plan" in results[0]["content"]
    assert all("plan mode" in r["content"] for r in results[1:])


def test_always_deny_holds_after_switching_to_auto(project: Path, fake_server: Any) -> None:
    server = fake_server(
        {
            "turns": [
                _call("bash", command="echo one > one.txt"),
                {"content": "not run"},
                _call("bash", command="echo two > two.txt"),
                {"content": "still not run"},
            ]
        }
    )
    recorder = Recorder(answers=["reject_always"])

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.prompt(session_id=sid, prompt=[text_block("one")])
            await rift.conn.set_session_mode(session_id=sid, mode_id="auto")
            await rift.conn.prompt(session_id=sid, prompt=[text_block("two")])

    run(scenario())
    assert len(recorder.permissions) == 1
    assert not (project / "one.txt").exists()
    assert not (project / "two.txt").exists()


def test_a_mode_switch_keeps_both_editor_controls_in_step(project: Path, fake_server: Any) -> None:
    """The mode selector and the "Mode" config option show the same mode, whichever moved."""
    server = fake_server({"turns": []})
    recorder = Recorder()

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.set_session_mode(session_id=sid, mode_id="plan")
            await recorder.wait_for(lambda: recorder.of("config_option_update"))
            await rift.conn.set_config_option(config_id="mode", session_id=sid, value="auto")
            await recorder.wait_for(lambda: recorder.of("current_mode_update"))

    run(scenario())
    (options,) = recorder.of("config_option_update")
    mode = next(o for o in options.config_options if o.id == "mode")
    assert mode.current_value == "plan"
    (current,) = recorder.of("current_mode_update")
    assert current.current_mode_id == "auto"

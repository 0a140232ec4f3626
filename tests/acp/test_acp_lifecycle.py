"""Session lifecycle through the SDK's client: session/close frees a session,
session/resume reopens a saved one without replaying it, session/fork copies one
into a new session whose turns leave the original untouched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import RequestError, text_block
from acp_harness import Recorder, connect, run
from rift_bin import sessions_dir


def _first_session(project: Path, server: Any, text: str) -> str:
    async def scenario() -> str:
        async with connect(Recorder(), project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.prompt(session_id=sid, prompt=[text_block(text)])
            return str(sid)

    return str(run(scenario()))


def _user_texts(path: Path) -> list[str]:
    messages = json.loads(path.read_text())["messages"]
    return [m["content"] for m in messages if m["role"] == "user"]


def test_close_frees_the_session_and_the_connection_goes_on(
    project: Path, fake_server: Any
) -> None:
    server = fake_server({"turns": [{"content": "one"}, {"content": "two"}]})

    async def scenario() -> None:
        async with connect(Recorder(), project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.prompt(session_id=sid, prompt=[text_block("first")])
            await rift.conn.close_session(session_id=sid)
            with pytest.raises(RequestError) as gone:
                await rift.conn.prompt(session_id=sid, prompt=[text_block("again")])
            assert gone.value.code == -32602
            other = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            done = await rift.conn.prompt(session_id=other, prompt=[text_block("second")])
            assert done.stop_reason == "end_turn"
            assert rift.init.agent_capabilities.session_capabilities.close is not None

    run(scenario())
    saved = sessions_dir().glob("*.json")
    assert sorted(_user_texts(p) for p in saved) == [["first"], ["second"]]


def test_resume_reopens_without_replaying(project: Path, fake_server: Any) -> None:
    server = fake_server({"turns": [{"content": "noted: 7"}, {"content": "it was 7"}]})
    sid = _first_session(project, server, "remember 7")
    recorder = Recorder()

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            assert rift.init.agent_capabilities.session_capabilities.resume is not None
            resumed = await rift.conn.resume_session(cwd=str(project), session_id=sid)
            assert resumed.modes.current_mode_id == "ask"
            assert recorder.of("user_message_chunk") == []
            assert recorder.of("agent_message_chunk") == []
            await rift.conn.prompt(session_id=sid, prompt=[text_block("what was it?")])

    run(scenario())
    assert recorder.text() == "it was 7"
    assert "remember 7" in str(server.chat_requests()[-1]["messages"])


def test_fork_continues_a_copy(project: Path, fake_server: Any) -> None:
    server = fake_server({"turns": [{"content": "noted: 7"}, {"content": "in the fork"}]})
    sid = _first_session(project, server, "remember 7")
    original = sessions_dir() / f"{sid}.json"

    async def scenario() -> str:
        async with connect(Recorder(), project, server) as rift:
            forked = await rift.conn.fork_session(cwd=str(project), session_id=sid)
            assert forked.session_id != sid
            await rift.conn.prompt(session_id=forked.session_id, prompt=[text_block("go on")])
            return str(forked.session_id)

    fork = run(scenario())
    assert _user_texts(original) == ["remember 7"]
    assert _user_texts(sessions_dir() / f"{fork}.json") == ["remember 7", "go on"]
    assert "remember 7" in str(server.chat_requests()[-1]["messages"])

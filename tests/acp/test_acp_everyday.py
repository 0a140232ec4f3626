"""The everyday commands from an ACP editor (issue 32): offered, run by the owner, said back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import text_block
from acp_harness import Recorder, connect, run


def test_retry_system_and_share_from_the_editor(project: Path, fake_server: Any) -> None:
    server = fake_server({"turns": [{"content": "one"}, {"content": "one again"}]})
    recorder = Recorder(answers=["allow_once"])

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await recorder.wait_for(lambda: recorder.of("available_commands_update"))
            offered = {
                c.name for c in recorder.of("available_commands_update")[-1].available_commands
            }
            assert {"retry", "init", "share", "fork", "system", "tools", "config"} <= offered

            async def say(text: str) -> str:
                recorder.updates.clear()
                done = await rift.conn.prompt(session_id=sid, prompt=[text_block(text)])
                assert done.stop_reason == "end_turn"
                return recorder.text()

            assert "one" in await say("first")
            assert "one again" in await say("/retry")
            assert "You are rift" in await say("/system")
            assert "wrote the transcript" in await say("/share talk.html")

    run(scenario())
    assert "one again" in (project / "talk.html").read_text()
    users = [m for m in server.chat_requests()[-1]["messages"] if m["role"] == "user"]
    assert [m["content"] for m in users] == ["first"]

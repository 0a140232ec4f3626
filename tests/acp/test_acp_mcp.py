"""MCP servers the editor passes in `session/new` become rift tools (a real stdio server)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")
pytest.importorskip("mcp", reason="the optional MCP SDK (rift[mcp]) is not installed")

from acp import text_block
from acp.schema import McpServerStdio
from acp_harness import Recorder, connect, run

SERVER = """\
from mcp.server.mcpserver import MCPServer

app = MCPServer("echoer")


@app.tool()
def echo(text: str) -> str:
    \"\"\"Echo the text back.\"\"\"
    return f"echo: {text}"


app.run()
"""


def test_editor_mcp_servers_become_tools(project: Path, fake_server: Any, tmp_path: Path) -> None:
    script = tmp_path / "echo_server.py"
    script.write_text(SERVER, encoding="utf-8")
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [{"name": "srv_echo", "arguments": {"text": "ping"}}]},
                {"content": "echoed"},
            ]
        }
    )
    recorder = Recorder()

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            stdio = McpServerStdio(name="srv", command=sys.executable, args=[str(script)], env=[])
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[stdio])).session_id
            await rift.conn.set_session_mode(session_id=sid, mode_id="auto")
            done = await rift.conn.prompt(session_id=sid, prompt=[text_block("echo ping")])
            assert done.stop_reason == "end_turn"

    run(scenario(), timeout=120)
    first, second = server.chat_requests()[:2]
    assert "srv_echo" in [t["function"]["name"] for t in first.get("tools") or []]
    assert "echo: ping" in json.dumps(second["messages"])
    (call,) = recorder.tool_calls().values()
    assert call[0].title == "srv_echo" and call[-1].status == "completed"

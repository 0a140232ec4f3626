"""MCP servers as tools: a real stdio server (the SDK's own server side) spawned by rift."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from extend_helpers import config_dir, request_text, tool_names, trusted, write_json

pytest.importorskip("mcp", reason="the optional MCP SDK (rift[mcp]) is not installed")

from rift.extend.mcp import tool_name

SERVER = """\
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

app = MCPServer("echoer")


@app.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo(text: str) -> str:
    \"\"\"Echo the text back.\"\"\"
    return f"echo: {text}"


@app.tool()
def fail() -> str:
    \"\"\"Always fails.\"\"\"
    raise ValueError("no luck")


app.run()
"""
CONNECT = 60.0


@pytest.fixture
def echo_server(tmp_path: Path) -> dict[str, Any]:
    script = tmp_path / "echo_server.py"
    script.write_text(SERVER, encoding="utf-8")
    return {"command": sys.executable, "args": [str(script)]}


def echo_turns() -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"name": "srv_echo", "arguments": {"text": "ping"}}]},
        {"tool_calls": [{"name": "srv_fail", "arguments": {}}]},
        {"content": "echoed"},
    ]


def test_tool_names_are_sanitised_and_capped() -> None:
    assert tool_name("my.server", "do thing/now") == "my_server_do_thing_now"
    assert len(tool_name("s" * 40, "t" * 40)) == 64


def test_user_server_tools_reach_the_model(fake_server, start_serve, echo_server) -> None:
    write_json(config_dir() / "config.json", {"mcp": {"srv": echo_server}})
    server = fake_server({"turns": echo_turns()})
    serve = start_serve(server)
    serve.until("info", timeout=CONNECT, text="mcp 'srv': 2 tools")
    serve.send({"cmd": "prompt", "text": "echo ping"})
    serve.until("done", timeout=CONNECT)
    requests = server.chat_requests()
    assert {"srv_echo", "srv_fail"} <= set(tool_names(requests[0]))
    assert "echo: ping" in request_text(requests[1])
    results = serve.named("tool_result")
    assert [r["ok"] for r in results] == [True, False]
    assert "reported an error" in request_text(requests[2])
    assert serve.close() == 0


def test_project_server_needs_trust(fake_server, start_serve, project, echo_server) -> None:
    write_json(project / ".mcp.json", {"mcpServers": {"srv": echo_server}})
    server = fake_server({"turns": echo_turns()})
    serve = start_serve(server)
    serve.send({"cmd": "hello"})
    ask = serve.until("ask")
    assert ask["question"] == "Trust project MCP server 'srv'?"
    assert ask["choices"] == ["trust", "skip"]
    assert echo_server["args"][0] in ask["detail"][0]
    assert serve.named("info") == []  # not started before the user said so
    serve.send({"cmd": "answer", "id": ask["id"], "text": "trust"})
    serve.until("info", timeout=CONNECT, text="mcp 'srv': 2 tools")
    assert len(trusted("trusted-mcp.json")) == 1
    serve.send({"cmd": "prompt", "text": "echo ping"})
    serve.until("done", timeout=CONNECT)
    assert "echo: ping" in request_text(server.chat_requests()[1])
    assert serve.close() == 0

    # Trusted: the next session connects without asking.
    serve2 = start_serve(fake_server({}))
    serve2.send({"cmd": "hello"})
    serve2.until("info", timeout=CONNECT, text="mcp 'srv': 2 tools")
    assert serve2.named("ask") == []
    assert serve2.close() == 0


def test_a_skipped_project_server_is_never_started(
    fake_server, start_serve, project, echo_server, tmp_path: Path
) -> None:
    flag = tmp_path / "started"
    spy = {"command": "sh", "args": ["-c", f"touch {flag}; exec cat"]}
    write_json(project / ".mcp.json", {"mcpServers": {"spy": spy}})
    serve = start_serve(fake_server({}))
    serve.send({"cmd": "hello"})
    ask = serve.until("ask")
    serve.send({"cmd": "answer", "id": ask["id"], "text": "skip"})
    serve.until("info", text="MCP server 'spy' left untrusted: not started")
    assert serve.close() == 0
    assert not flag.exists()
    assert trusted("trusted-mcp.json") == []


def test_a_server_that_fails_to_start_is_an_info_and_rift_keeps_working(
    fake_server, start_serve
) -> None:
    broken = {"command": "/nonexistent/mcp-server-binary"}
    write_json(config_dir() / "config.json", {"mcp": {"bad": broken}})
    server = fake_server({"turns": [{"content": "still here"}]})
    serve = start_serve(server)
    info = serve.until("info", timeout=CONNECT)
    assert info["text"].startswith("mcp 'bad' failed to start")
    serve.send({"cmd": "prompt", "text": "hi"})
    serve.until("done")
    assert serve.named("content")[-1]["text"] == "still here"
    assert serve.close() == 0


def test_headless_waits_for_mcp_tools(fake_server, harness_run, echo_server) -> None:
    write_json(config_dir() / "config.json", {"mcp": {"srv": echo_server}})
    server = fake_server({"turns": echo_turns()})
    run = harness_run(server, "echo ping")
    assert run.returncode == 0, run.stderr
    assert "mcp 'srv': 2 tools" in run.stderr
    assert "echo: ping" in request_text(server.chat_requests()[1])


HTTP_SERVER = SERVER.replace(
    "app.run()", "app.run('streamable-http', host='127.0.0.1', port={port})"
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    port = _free_port()
    script = tmp_path / "http_server.py"
    script.write_text(HTTP_SERVER.replace("{port}", str(port)), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + CONNECT
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_streamable_http_server(fake_server, start_serve, http_server: str) -> None:
    remote = {"url": http_server, "headers": {"X-Test": "1"}}
    write_json(config_dir() / "config.json", {"mcp": {"srv": remote}})
    server = fake_server({"turns": echo_turns()})
    serve = start_serve(server)
    serve.until("info", timeout=CONNECT, text="mcp 'srv': 2 tools")
    serve.send({"cmd": "prompt", "text": "echo ping"})
    serve.until("done", timeout=CONNECT)
    assert "echo: ping" in request_text(server.chat_requests()[1])
    assert serve.close() == 0


def test_a_deny_rule_naming_an_mcp_tool_refuses_it(fake_server, harness_run, echo_server) -> None:
    """A bare tool name in `deny` refuses that tool in every mode, MCP tools included."""
    config = {"mcp": {"srv": echo_server}, "permissions": {"deny": ["srv_echo"]}}
    write_json(config_dir() / "config.json", config)
    server = fake_server({"turns": echo_turns()})
    run = harness_run(server, "echo ping")
    assert run.returncode == 0, run.stderr
    sent = request_text(server.chat_requests()[1])
    assert "echo: ping" not in sent
    assert "blocked by permission rule 'srv_echo'" in sent


def test_plan_mode_runs_only_mcp_tools_declared_read_only(
    fake_server, start_serve, echo_server
) -> None:
    """`echo` carries readOnlyHint and runs in plan mode; `fail` does not, so it is refused."""
    write_json(config_dir() / "config.json", {"mcp": {"srv": echo_server}})
    server = fake_server({"turns": echo_turns()})
    serve = start_serve(server)
    serve.until("info", timeout=CONNECT, text="mcp 'srv': 2 tools")
    serve.send({"cmd": "set_mode", "mode": "plan"})
    serve.send({"cmd": "prompt", "text": "echo ping"})
    serve.until("done", timeout=CONNECT)
    requests = server.chat_requests()
    assert "echo: ping" in request_text(requests[1])
    assert "plan mode is on" in request_text(requests[2])
    assert "no luck" not in request_text(requests[2])
    assert serve.close() == 0

"""The everyday commands over serve (issue 32): /retry, /init, /share, /fork, /system,
/tools, /btw, /config, /permissions add|remove; additive serve commands listed in
`ready.commands`, run by each registry command's own `run` (core/commands/)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .serve_session import tool_call

EVERYDAY = (
    "retry",
    "init",
    "share",
    "fork",
    "system",
    "tools",
    "btw",
    "config",
    "permissions",
    "mcp",
    "lsp",
)


def _info(session: Any, starting: str) -> str:
    event = session.expect("info")
    while not event["text"].startswith(starting):
        event = session.expect("info")
    text: str = event["text"]
    return text


def test_ready_lists_the_everyday_commands(fake_server, serve) -> None:
    session = serve(fake_server({}))
    commands = session.events[0]["commands"]
    assert set(EVERYDAY) <= set(commands)
    assert commands[:2] == ["hello", "prompt"]  # the protocol's own order is kept
    assert session.close() == 0


def test_retry_rewinds_the_last_turn_and_runs_its_prompt_again(fake_server, serve, project) -> None:
    write = {"tool_calls": [tool_call("write", path="one.txt", content="1\n")]}
    server = fake_server({"turns": [write, {"content": "wrote"}, write, {"content": "again"}]})
    session = serve(server)
    session.send({"cmd": "hello", "approve": False})
    session.expect("capabilities")
    session.prompt("make one.txt")
    session.read_until("done")
    session.read_until("context")
    session.send({"cmd": "retry"})
    assert "rewound 1 turn(s)" in _info(session, "rewound")
    session.read_until("done")
    prompts = [m["content"] for m in server.chat_requests()[-1]["messages"] if m["role"] == "user"]
    assert prompts == ["make one.txt"]  # the old turn is gone; the prompt ran once more
    assert (project / "one.txt").read_text() == "1\n"
    assert session.close() == 0


def test_init_asks_the_model_for_agents_md(fake_server, serve, project) -> None:
    write = {"tool_calls": [tool_call("write", path="AGENTS.md", content="# Agents\n")]}
    server = fake_server({"turns": [write, {"content": "done"}]})
    session = serve(server)
    session.send({"cmd": "hello", "approve": False})
    session.expect("capabilities")
    session.send({"cmd": "init"})
    session.read_until("done")
    first = server.chat_requests()[0]["messages"][-1]["content"]
    assert "AGENTS.md" in first and "Survey this project" in first
    assert (project / "AGENTS.md").read_text() == "# Agents\n"
    assert session.close() == 0


def test_share_writes_an_html_transcript(fake_server, serve, project) -> None:
    session = serve(fake_server({"turns": [{"content": "hello <there>"}]}))
    session.prompt("hi")
    session.read_until("context")
    session.send({"cmd": "share", "args": "t.html"})
    assert _info(session, "wrote the transcript").endswith(str(project / "t.html"))
    page = (project / "t.html").read_text()
    assert page.startswith("<!doctype html>") and "hello &lt;there&gt;" in page
    session.send({"cmd": "share", "args": 3})
    assert "'args' must be a string" in session.expect("warning")["text"]
    assert session.close() == 0


def test_fork_continues_in_a_copy(fake_server, serve) -> None:
    session = serve(fake_server({"turns": [{"content": "one"}, {"content": "two"}]}))
    session.prompt("first")
    session.read_until("context")
    session.send({"cmd": "fork"})
    changed = session.expect("session_changed")
    old, new = Path(changed["previous"]), Path(changed["session"])
    assert old != new
    session.prompt("second")
    session.read_until("context")
    assert session.close() == 0
    old_users = [m for m in json.loads(old.read_text())["messages"] if m["role"] == "user"]
    new_users = [m for m in json.loads(new.read_text())["messages"] if m["role"] == "user"]
    assert [m["content"] for m in old_users] == ["first"]
    assert [m["content"] for m in new_users] == ["first", "second"]


def test_system_tools_and_config_report(fake_server, serve) -> None:
    session = serve(fake_server({}))
    session.send({"cmd": "system"})
    assert "You are rift" in _info(session, "system prompt")
    session.send({"cmd": "tools"})
    tools = _info(session, "")
    assert "read:" in tools and "edit:" in tools
    session.send({"cmd": "config"})
    config = _info(session, "settings")
    assert "model" in config and "command line or a live change" in config  # -m fake-model
    assert session.close() == 0


def test_config_edit_names_the_file_and_creates_its_skeleton(fake_server, serve) -> None:
    """Serve lends no terminal: `/config edit` names the user config (created with
    commented examples when missing) and says to reload after editing it."""
    session = serve(fake_server({}))
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json"
    assert not config.exists()
    session.send({"cmd": "config", "args": "edit"})
    said = _info(session, "the user config is")
    assert str(config) in said and "/config reload" in said and "just created" in said
    skeleton = json.loads(config.read_text())
    assert "//" in skeleton and "// model" in skeleton  # notes rift ignores, valid JSON
    session.send({"cmd": "config", "args": "reload"})
    assert _info(session, "settings reloaded").startswith("settings reloaded")
    assert not [e for e in session.events if e.get("event") == "warning"]  # the skeleton loads
    session.send({"cmd": "config", "args": "edit"})
    assert "just created" not in _info(session, "the user config is")
    assert session.close() == 0


def test_btw_answers_without_entering_the_history(fake_server, serve) -> None:
    server = fake_server({"turns": [{"content": "main answer"}, {"content": "side answer"}]})
    session = serve(server)
    session.prompt("main question")
    session.read_until("context")
    session.send({"cmd": "btw", "args": "what is 2+2?"})
    assert _info(session, "btw:") == "btw: side answer"
    assert session.close() == 0
    stored = json.loads(Path(session.events[0]["session"]).read_text())["messages"]
    assert "what is 2+2?" not in json.dumps(stored)


def test_permissions_add_and_remove_edit_the_user_config(fake_server, serve) -> None:
    session = serve(fake_server({}))
    session.send({"cmd": "permissions", "args": "add deny Bash(rm *)"})
    assert _info(session, "added") == "added deny rule Bash(rm *)"
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json"
    assert json.loads(config.read_text())["permissions"]["deny"] == ["Bash(rm *)"]
    assert _info(session, "settings reloaded").startswith("settings reloaded")
    session.send({"cmd": "permissions", "args": ""})
    assert "deny: Bash(rm *)" in _info(session, "permission rules")
    session.send({"cmd": "permissions", "args": "remove deny Bash(rm *)"})
    assert _info(session, "removed") == "removed deny rule Bash(rm *)"
    assert json.loads(config.read_text())["permissions"]["deny"] == []
    session.send({"cmd": "permissions", "args": "add nonsense((("})
    assert "not a permission rule" in session.expect("warning")["text"]
    assert session.close() == 0


def test_save_names_the_session_and_continues_under_the_name(fake_server, serve) -> None:
    session = serve(fake_server({"turns": [{"content": "one"}, {"content": "two"}]}))
    session.prompt("first")
    session.read_until("context")
    session.send({"cmd": "save", "args": "my work"})
    changed = session.expect("session_changed")
    old, new = Path(changed["previous"]), Path(changed["session"])
    assert new.name == "my-work.json" and not old.exists()
    session.prompt("second")
    session.read_until("context")
    assert session.close() == 0
    users = [m["content"] for m in json.loads(new.read_text())["messages"] if m["role"] == "user"]
    assert users == ["first", "second"]


def test_mcp_and_lsp_say_what_runs(fake_server, serve) -> None:
    session = serve(fake_server({}))
    session.send({"cmd": "mcp"})
    assert _info(session, "no MCP servers").startswith("no MCP servers configured")
    session.send({"cmd": "lsp"})
    assert _info(session, "no language server").startswith("no language server running")
    assert session.close() == 0


def test_a_typo_in_the_user_config_reload_keeps_the_deny_rules(fake_server, serve) -> None:
    """Issue 44: one trailing comma, then `/config reload`, said "settings reloaded" with no
    warning and dropped the user's deny rules. It must fail closed: the warning startup gives
    (line and column), the rules in force kept, and no "reloaded"."""
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"permissions": {"deny": ["Bash(curl *)"]}}))
    session = serve(fake_server({}))
    config.write_text('{"permissions": {"deny": ["Bash(curl *)"],}}')
    session.send({"cmd": "config", "args": "reload"})
    events = session.barrier()
    warnings = [e["text"] for e in events if e.get("event") == "warning"]
    infos = [e["text"] for e in events if e.get("event") == "info"]
    assert any(str(config) in w and "line 1, column" in w for w in warnings), events
    assert not any("reloaded" in text for text in infos), infos
    session.send({"cmd": "permissions", "args": ""})
    assert "deny: Bash(curl *)" in _info(session, "permission rules")
    assert session.close() == 0

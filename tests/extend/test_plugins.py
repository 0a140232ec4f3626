"""Plugins: manifests, commands as skills, tools as subprocesses, and project trust over serve."""

from __future__ import annotations

import asyncio
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from extend_helpers import (
    config_dir,
    data_dir,
    request_text,
    tool_names,
    trusted,
    write_json,
)
from serve_driver import processes_with, wait_gone

from rift.errors import ToolError
from rift.extend.plugins import discover_plugins, parse_manifest, plugin_tools
from rift.tools.base import ToolContext

GREET = (
    "import json, sys\n"
    "args = json.load(sys.stdin)\n"
    "print('hello ' + args['who'] + ' from the plugin')\n"
)


def greet_manifest(**extra: Any) -> dict[str, Any]:
    return {
        "name": "demo",
        "description": "A demo plugin",
        "commands": [{"name": "ship", "prompt": "Deploy {args} right now."}],
        "tools": [
            {
                "name": "greet",
                "description": "Greets someone",
                "command": f"{sys.executable} .rift/plugins/demo/greet.py",
                "parameters": {"type": "object", "properties": {"who": {"type": "string"}}},
            }
        ],
        **extra,
    }


def add_plugin(root: Path, manifest: dict[str, Any], dirname: str = "demo") -> Path:
    directory = root / dirname
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "greet.py").write_text(GREET, encoding="utf-8")
    return write_json(directory / "plugin.json", manifest)


def project_plugin(project: Path, manifest: dict[str, Any] | None = None) -> Path:
    return add_plugin(project / ".rift" / "plugins", manifest or greet_manifest())


def greet_turns() -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"name": "greet", "arguments": {"who": "Bob"}}]},
        {"content": "greeted"},
    ]


# ------------------------------------------------------------------ manifests


def test_a_manifest_that_does_not_parse_is_a_warning_not_a_crash(
    fake_server, start_serve, project: Path
) -> None:
    bad = project / ".rift" / "plugins" / "broken" / "plugin.json"
    bad.parent.mkdir(parents=True)
    bad.write_text("{not json", encoding="utf-8")
    project_plugin(project)
    serve = start_serve(fake_server({"turns": [{"content": "ok"}]}))
    warning = serve.until("warning")
    assert "broken" in warning["text"] and "not valid JSON" in warning["text"]
    assert {"name": "ship", "description": "(plugin demo)"} in serve.events[0]["skills"]
    assert serve.close() == 0


def test_project_plugins_win_name_collisions(project: Path, tmp_path: Path) -> None:
    user = tmp_path / "userconf"
    add_plugin(user / "plugins", {**greet_manifest(), "description": "user copy"})
    project_plugin(project)
    warnings: list[str] = []
    plugins = discover_plugins(project, user, warnings)
    assert warnings == []
    assert plugins["demo"].description == "A demo plugin" and plugins["demo"].project


def test_manifest_shape_errors_name_the_field(tmp_path: Path) -> None:
    path = tmp_path / "p" / "plugin.json"
    with pytest.raises(ValueError, match="'command'"):
        parse_manifest(b'{"name": "x", "tools": [{"name": "t"}]}', path, True)
    with pytest.raises(ValueError, match="timeout_secs"):
        raw = b'{"tools": [{"name": "t", "command": "true", "timeout_secs": -1}]}'
        parse_manifest(raw, path, True)
    plugin = parse_manifest(b'{"tools": [{"name": "t", "command": "true"}]}', path, False)
    assert plugin.name == "p"  # the directory name when the manifest names none
    assert plugin.tools[0].parameters == {"type": "object", "properties": {}}


# ------------------------------------------------------------------ tool I/O


class _NoGate:
    def check_read(self, path: Path) -> None:
        return None


def _run_tool(project: Path, manifest: dict[str, Any], args: dict[str, Any]) -> str:
    path = project_plugin(project, manifest)
    plugin = parse_manifest(path.read_bytes(), path, False)
    tool = plugin_tools(plugin)[manifest["tools"][0]["name"]]
    ctx = ToolContext(cwd=project, gate=_NoGate(), journal=None)  # type: ignore[arg-type]
    return asyncio.run(tool.run(args, ctx)).text


def _one_tool(command: str, **extra: Any) -> dict[str, Any]:
    return {"name": "demo", "tools": [{"name": "t", "command": command, **extra}]}


def test_plugin_tool_gets_its_arguments_as_json_on_stdin(project: Path) -> None:
    text = _run_tool(project, greet_manifest(), {"who": "Ann"})
    assert text == "hello Ann from the plugin"
    path = project / ".rift" / "plugins" / "demo" / "plugin.json"
    tool = plugin_tools(parse_manifest(path.read_bytes(), path, False))["greet"]
    assert tool.description == "Greets someone (plugin: demo)"


def test_plugin_tool_failures_and_empty_output(project: Path) -> None:
    assert _run_tool(project, _one_tool("cat > /dev/null"), {}) == "(no output)"
    with pytest.raises(ToolError, match=r"failed \(exit 3\): broken pipe dream"):
        _run_tool(project, _one_tool("echo out; echo broken pipe dream >&2; exit 3"), {})
    with pytest.raises(ToolError, match=r"exit 4\): only stdout"):
        _run_tool(project, _one_tool("echo only stdout; exit 4"), {})


def test_plugin_tool_timeout_kills_the_process_group(project: Path) -> None:
    marker = f"MARK{uuid.uuid4().hex}"
    command = f"sleep 30 & sleep 31 # {marker}"
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"timed out after 0.5s"):
        _run_tool(project, _one_tool(command, timeout_secs=0.5), {})
    assert time.monotonic() - started < 10
    assert wait_gone(marker) == [], processes_with(marker)


# ------------------------------------------------------------------ trust over serve


def test_trust_ask_then_persisted_then_reasked_after_an_edit(
    fake_server, start_serve, project: Path
) -> None:
    manifest_path = project_plugin(project)
    turns = [
        {"tool_calls": [{"name": "greet", "arguments": {"who": "Bob"}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]},
        {"content": "greeted"},
    ]
    server = fake_server({"turns": turns})
    serve = start_serve(server)
    serve.send({"cmd": "hello", "edit_review": False})
    serve.until("capabilities")
    ask = serve.until("ask")
    assert ask["id"] == 1
    assert ask["choices"] == ["trust", "skip"]
    assert "demo" in ask["question"]
    command = f"{sys.executable} .rift/plugins/demo/greet.py"
    assert ask["detail"][0] == f"greet: Greets someone — `{command}`"
    serve.send({"cmd": "answer", "id": 1, "text": " Trust "})
    info = serve.until("info")
    assert info["text"] == "plugin 'demo' trusted — tools registered: greet"
    assert any(k.startswith("plugin:") and str(project) in k for k in trusted())

    serve.send({"cmd": "prompt", "text": "greet Bob"})
    bash_ask = serve.until("ask")
    assert bash_ask["id"] == 2  # one counter for trust asks and approval asks
    serve.send({"cmd": "answer", "id": 2, "text": "allow once"})
    serve.until("done")
    requests = server.chat_requests()
    assert "greet" in tool_names(requests[0])
    assert "hello Bob from the plugin" in request_text(requests[1])
    assert serve.close() == 0

    # A second run: trusted, so no ask, and the tool is there from the start.
    server2 = fake_server({"turns": [{"content": "ok"}]})
    serve2 = start_serve(server2)
    serve2.send({"cmd": "hello"})
    serve2.send({"cmd": "prompt", "text": "hi"})
    serve2.until("done")
    assert serve2.named("ask") == []
    assert "greet" in tool_names(server2.chat_requests()[0])
    assert serve2.close() == 0

    # Any edit of the manifest asks again.
    manifest_path.write_text(json.dumps(greet_manifest(description="changed")), encoding="utf-8")
    server3 = fake_server({"turns": [{"content": "ok"}]})
    serve3 = start_serve(server3)
    serve3.send({"cmd": "prompt", "text": "hi"})  # no hello: the first prompt offers trust
    assert serve3.until("ask")["choices"] == ["trust", "skip"]
    serve3.until("done")
    assert "greet" not in tool_names(server3.chat_requests()[0])
    assert serve3.close() == 0


def test_skip_leaves_the_plugin_untrusted(fake_server, start_serve, project: Path) -> None:
    project_plugin(project)
    server = fake_server({"turns": [{"content": "ok"}]})
    serve = start_serve(server)
    serve.send({"cmd": "hello"})
    ask = serve.until("ask")
    serve.send({"cmd": "answer", "id": ask["id"], "text": "skip"})
    serve.until("info")
    serve.send({"cmd": "prompt", "text": "hi"})
    serve.until("done")
    assert "greet" not in tool_names(server.chat_requests()[0])
    assert trusted() == []
    assert serve.close() == 0


def test_approval_off_skips_the_ask_with_an_info(fake_server, start_serve, project) -> None:
    project_plugin(project)
    server = fake_server({"turns": [{"content": "ok"}]})
    serve = start_serve(server)
    serve.send({"cmd": "hello", "approve": False})
    info = serve.until("info")
    assert "plugin 'demo' stays untrusted while auto-approve is on" in info["text"]
    serve.send({"cmd": "prompt", "text": "hi"})
    serve.until("done")
    assert serve.named("ask") == []
    assert "greet" not in tool_names(server.chat_requests()[0])
    assert serve.close() == 0


def test_a_dropped_answer_leaves_it_untrusted(fake_server, start_serve, project: Path) -> None:
    project_plugin(project)
    serve = start_serve(fake_server({}))
    serve.send({"cmd": "hello"})
    serve.until("ask")
    assert serve.close() == 0  # stdin closed: the pending ask resolves as "no"
    assert trusted() == []


def test_user_plugins_register_freely(fake_server, start_serve, project: Path) -> None:
    manifest = greet_manifest()
    manifest["tools"][0]["command"] = f"{sys.executable} {config_dir()}/plugins/demo/greet.py"
    add_plugin(config_dir() / "plugins", manifest)
    server = fake_server({"turns": greet_turns()})
    serve = start_serve(server)
    serve.send({"cmd": "prompt", "text": "greet Bob"})
    serve.until("done")
    assert serve.named("ask") == []
    assert "hello Bob from the plugin" in request_text(server.chat_requests()[1])
    assert serve.close() == 0


def test_plugin_command_expands_as_a_skill(fake_server, start_serve, project: Path) -> None:
    project_plugin(project)
    server = fake_server({"turns": [{"content": "ok"}]})
    serve = start_serve(server)
    serve.send({"cmd": "prompt", "text": "/skill:ship production"})
    serve.until("done")
    last = server.chat_requests()[0]["messages"][-1]
    assert last == {"role": "user", "content": "Deploy production right now."}
    assert "- ship: (plugin demo)" in server.chat_requests()[0]["messages"][0]["content"]
    assert serve.close() == 0


# ------------------------------------------------------------------ headless


def test_headless_uses_only_trusted_project_plugins(
    fake_server, harness_run, project: Path
) -> None:
    manifest_path = project_plugin(project)
    server = fake_server({"turns": [{"content": "ok"}]})
    run = harness_run(server, "hi")
    assert run.returncode == 0, run.stderr
    assert "1 untrusted project plugin skipped" in run.stderr
    assert "greet" not in tool_names(server.chat_requests()[0])

    from rift.config.trust import plugin_trust_key

    key = plugin_trust_key(project, manifest_path.parent, manifest_path.read_bytes())
    write_json(data_dir() / "trusted-hooks.json", [key])
    server2 = fake_server({"turns": greet_turns()})
    run2 = harness_run(server2, "greet Bob")
    assert run2.returncode == 0, run2.stderr
    assert "untrusted" not in run2.stderr
    assert "hello Bob from the plugin" in request_text(server2.chat_requests()[1])


def test_a_corrupt_trust_store_is_a_warning_and_trusts_nothing(
    fake_server, start_serve, project: Path
) -> None:
    project_plugin(project)
    store = data_dir() / "trusted-hooks.json"
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_text("[oops", encoding="utf-8")
    serve = start_serve(fake_server({}))
    assert "corrupt" in serve.until("warning")["text"]
    serve.send({"cmd": "hello"})
    ask = serve.until("ask")
    serve.send({"cmd": "answer", "id": ask["id"], "text": "y"})
    serve.until("info", text="plugin 'demo' trusted — tools registered: greet")
    assert serve.close() == 0
    assert len(trusted()) == 1  # rewritten as a valid array


# ------------------------------------------------------------------ the gate


def _user_greet_plugin() -> None:
    manifest = greet_manifest()
    manifest["tools"][0]["command"] = f"{sys.executable} {config_dir()}/plugins/demo/greet.py"
    add_plugin(config_dir() / "plugins", manifest)


def test_a_deny_rule_naming_a_plugin_tool_refuses_it(fake_server, harness_run) -> None:
    """A bare tool name in `deny` refuses that tool in every mode, plugin tools included."""
    _user_greet_plugin()
    write_json(config_dir() / "config.json", {"permissions": {"deny": ["Greet"]}})
    server = fake_server({"turns": greet_turns()})
    run = harness_run(server, "greet Bob")
    assert run.returncode == 0, run.stderr
    sent = request_text(server.chat_requests()[1])
    assert "hello Bob" not in sent
    assert "blocked by permission rule 'Greet'" in sent


def test_plan_mode_refuses_plugin_tools(fake_server, start_serve, project: Path) -> None:
    """Plan mode is read-only, and a plugin tool is a command rift cannot see into."""
    _user_greet_plugin()
    server = fake_server({"turns": greet_turns()})
    serve = start_serve(server)
    serve.send({"cmd": "set_mode", "mode": "plan"})
    serve.send({"cmd": "prompt", "text": "greet Bob"})
    serve.until("done")
    sent = request_text(server.chat_requests()[1])
    assert "hello Bob" not in sent
    assert "plan mode is on" in sent
    assert [r["ok"] for r in serve.named("tool_result")] == [False]
    assert serve.close() == 0

"""Personas: `.rift/agents/<name>.md` roles, advertised to the model and used by the agent tool."""

from __future__ import annotations

from pathlib import Path

from rift.extend.personas import discover_personas

REVIEWER = """\
---
name: reviewer
description: Reviews changes; never edits.
model: fast
tools: read, grep
---
You are a strict reviewer. PERSONA-MARKER
"""


def test_discovery_front_matter_and_precedence(project: Path, tmp_path: Path) -> None:
    user = tmp_path / "userconf"
    (user / "agents").mkdir(parents=True)
    (user / "agents" / "reviewer.md").write_text("user copy", encoding="utf-8")
    (user / "agents" / "plain.md").write_text("Just a body.", encoding="utf-8")
    (project / ".rift" / "agents").mkdir(parents=True)
    (project / ".rift" / "agents" / "reviewer.md").write_text(REVIEWER, encoding="utf-8")
    personas = discover_personas(project, user)
    assert list(personas) == ["plain", "reviewer"]
    reviewer = personas["reviewer"]
    assert reviewer.description == "Reviews changes; never edits."
    assert reviewer.model == "fast"
    assert reviewer.tools == ("read", "grep")
    assert reviewer.body == "You are a strict reviewer. PERSONA-MARKER"
    plain = personas["plain"]
    assert (plain.model, plain.tools, plain.description) == (None, None, "(no description)")


def test_personas_are_advertised_and_shape_the_child(
    fake_server, start_serve, project: Path
) -> None:
    (project / ".rift" / "agents").mkdir(parents=True)
    text = REVIEWER.replace("model: fast\n", "")
    (project / ".rift" / "agents" / "reviewer.md").write_text(text, encoding="utf-8")
    task = {"description": "review", "prompt": "review a.py", "agent": "reviewer"}
    turns = [
        {"match": "PERSONA-MARKER", "content": "looks fine"},
        {"tool_calls": [{"name": "agent", "arguments": {"tasks": [task]}}]},
        {"content": "reviewed"},
    ]
    server = fake_server({"turns": turns})
    serve = start_serve(server)
    serve.send({"cmd": "prompt", "text": "get it reviewed"})
    serve.until("done", timeout=30)
    first, child = server.chat_requests()[:2]
    system = first["messages"][0]["content"]
    assert "Personas" in system and "- reviewer: Reviews changes; never edits." in system
    assert "You are a strict reviewer." in child["messages"][-1]["content"]
    assert sorted(t["function"]["name"] for t in child["tools"]) == ["grep", "read"]
    assert serve.close() == 0

"""`/skill:<name> [task]` prompts expand the skill exactly like the TUI (spec `prompt`)."""

from __future__ import annotations

import json

SKILL = "---\ndescription: Fix things carefully.\n---\nRun the tests first.\n"


def test_skill_prompt_expands_into_the_model_request(fake_server, serve, project) -> None:
    (project / ".rift" / "skills").mkdir(parents=True)
    (project / ".rift" / "skills" / "fix.md").write_text(SKILL, encoding="utf-8")
    server = fake_server({"turns": [{"content": "ok", "repeat": 2}]})
    session = serve(server)
    assert {"name": "fix", "description": "Fix things carefully."} in session.events[0]["skills"]
    session.prompt("/skill:fix the bug")
    session.read_until("done")
    first = server.chat_requests()[0]
    prompt = first["messages"][-1]
    assert prompt["role"] == "user"
    assert "Follow this skill's instructions." in prompt["content"]
    assert "Run the tests first." in prompt["content"]
    assert "Task: the bug" in prompt["content"]
    assert "/skill:" not in json.dumps(first["messages"])
    assert session.close() == 0


def test_unknown_skill_is_a_warning_and_no_turn(fake_server, serve) -> None:
    server = fake_server({})
    session = serve(server)
    assert session.events[0]["skills"] == []
    session.prompt("/skill:missing the bug")
    assert session.barrier() == [
        {"event": "warning", "text": "unknown skill 'missing'", "code": "unknown_skill"}
    ]
    assert server.chat_requests() == []
    assert session.close() == 0

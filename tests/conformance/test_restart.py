"""`/restart` starts the session's extensions again from the current config and keeps
the conversation (issue 44 item 8: `/config reload` left MCP servers, plugins and skills
"for the next start")."""

from __future__ import annotations

import json
from pathlib import Path

from .serve_session import ServeSession

SKILL = "---\nname: late\ndescription: Added after start.\n---\nSay the late hello.\n"


def test_restart_picks_up_a_new_skill_and_keeps_the_conversation(
    fake_server, serve, project: Path
) -> None:
    server = fake_server({"turns": [{"content": "noted"}, {"content": "hello, late"}]})
    session: ServeSession = serve(server)
    assert "restart" in session.events[0]["commands"]
    session.prompt("remember the word walrus")
    session.read_until("context")
    (project / ".rift" / "skills").mkdir(parents=True)
    (project / ".rift" / "skills" / "late.md").write_text(SKILL, encoding="utf-8")
    session.prompt("/skill:late")
    assert "late" in session.expect("warning")["text"]  # not known before the restart
    session.send({"cmd": "restart"})
    info = session.expect("info", timeout=15)
    assert info["text"].startswith("restarted: 0 MCP server(s), 1 skill(s)")
    session.expect("context")
    session.prompt("/skill:late")
    session.read_until("done")
    assert session.close() == 0
    last = json.dumps(server.chat_requests()[-1]["messages"])
    assert "Say the late hello." in last
    assert "remember the word walrus" in last  # the same conversation
    saved = json.loads(Path(session.events[0]["session"]).read_text())["messages"]
    assert "walrus" in json.dumps(saved)


def test_restart_is_refused_mid_turn(fake_server, serve) -> None:
    server = fake_server({"turns": [{"content": ["a", "b"], "chunk_delay": 1.0}]})
    session: ServeSession = serve(server)
    session.prompt("slow")
    session.expect("content")
    session.send({"cmd": "restart"})
    warning = session.expect("warning")
    assert warning["code"] == "busy"
    session.read_until("done")
    assert session.close() == 0

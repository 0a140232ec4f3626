"""Skills: discovery, precedence, front matter defaults, the body cap, and `/skill:` on the wire."""

from __future__ import annotations

from pathlib import Path

from extend_helpers import request_text

from rift.extend.skills import BODY_CAP, discover_skills


def _skill(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_discovery_precedence_and_defaults(project: Path, tmp_path: Path) -> None:
    user = tmp_path / "userconf"
    _skill(user, "skills/fix.md", "---\ndescription: user fix\n---\nuser body\n")
    _skill(user, "skills/only-user/SKILL.md", "# Heading\n\nFirst real line.\nMore.\n")
    _skill(project, ".rift/skills/fix/SKILL.md", "---\ndescription: project fix\n---\nbody\n")
    _skill(project, ".rift/skills/named.md", "---\nname: renamed\n---\n")
    _skill(project, ".rift/skills/big.md", "x" * (BODY_CAP + 50))
    _skill(project, ".rift/skills/notes.txt", "not a skill")
    skills = discover_skills(project, user)
    assert list(skills) == ["big", "fix", "only-user", "renamed"]  # sorted by name
    assert skills["fix"].description == "project fix"  # the project wins
    assert skills["only-user"].description == "First real line."  # headings are skipped
    assert skills["renamed"].description == "(no description)"
    assert skills["big"].body.endswith(f"[skill truncated at {BODY_CAP} characters]")
    assert len(skills["big"].description) == 120


def test_skill_expansion_on_the_wire(fake_server, start_serve, project: Path) -> None:
    _skill(project, ".rift/skills/fix.md", "---\ndescription: Fix carefully.\n---\nRun tests.\n")
    server = fake_server({"turns": [{"content": "ok"}]})
    serve = start_serve(server)
    assert serve.events[0]["skills"] == [{"name": "fix", "description": "Fix carefully."}]
    serve.send({"cmd": "prompt", "text": "/skill:fix the parser"})
    serve.until("done")
    request = server.chat_requests()[0]
    prompt = request["messages"][-1]["content"]
    assert prompt == (
        "Follow this skill's instructions.\n\n--- SKILL: fix ---\nRun tests.\n\n"
        "--- END SKILL ---\n\nTask: the parser"
    )
    assert "- fix: Fix carefully." in request["messages"][0]["content"]
    assert "/skill:" not in request_text(request)
    assert "skill" in [t["function"]["name"] for t in request["tools"]]
    assert serve.close() == 0


def test_unknown_skill_is_a_warning_and_no_turn(fake_server, start_serve) -> None:
    server = fake_server({})
    serve = start_serve(server)
    serve.send({"cmd": "prompt", "text": "/skill:nope do it"})
    assert serve.until("warning")["text"] == "unknown skill 'nope'"
    assert serve.close() == 0
    assert server.chat_requests() == []

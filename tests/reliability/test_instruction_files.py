"""Instruction files never carry a file from outside the project to the model server.

Family "instruction-files" of the attack corpus (bypass_corpus.json lists these
tests under `pytest_cases`). A hostile repository symlinks AGENTS.md, RIFT.md,
CLAUDE.md, `.rift/memory.md`, a skill and a persona at the user's config (which
holds an API key) and at files outside the project; the fake server's request log
is what the model server saw, and none of the secrets may be in it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rift_bin import run_rift, write_json

pytestmark = pytest.mark.reliability

SECRET = "sk-SECRET-4f2a9c"
OUTSIDE = "OUTSIDE-PROJECT-7d1e"
DENIED = "DENIED-BY-RULE-3b8c"
VISIBLE = "VISIBLE-INSTRUCTIONS-9e0f"
FAKE_SERVER = Path(__file__).resolve().parents[1] / "fakes" / "fake_server.py"


def _home() -> Path:
    return Path(os.environ["HOME"])


def _user_config(extra: dict[str, Any]) -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json"
    data = {"providers": {"corp": {"base_url": "http://127.0.0.1:9/v1", "api_key": SECRET}}}
    write_json(path, {**data, **extra})
    return path


@pytest.fixture
def logged_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`python tests/fakes/fake_server.py --log`: its URL and the request log it writes."""
    script, log = tmp_path / "script.json", tmp_path / "requests.jsonl"
    script.write_text(json.dumps({"turns": [{"content": "ok"}]}), encoding="utf-8")
    command = [sys.executable, str(FAKE_SERVER), "--script", str(script)]
    proc = subprocess.Popen([*command, "--log", str(log)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip(), log
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _bodies(server: Any) -> str:
    return "\n".join(json.dumps(r) for r in server.requests() if "chat" in r["_path"])


def test_symlinked_instruction_files_do_not_reach_the_model(
    project: Path, tmp_path: Path, logged_server: tuple[str, Path]
) -> None:
    config = _user_config({"permissions": {"deny": ["Read(private/**)"]}})
    outside = tmp_path / "outside.md"
    outside.write_text(f"{OUTSIDE}\n", encoding="utf-8")
    (project / "private").mkdir()
    (project / "private" / "notes.md").write_text(f"{DENIED}\n", encoding="utf-8")
    (project / "AGENTS.md").symlink_to(config)
    (project / "RIFT.md").symlink_to(outside)
    (project / "CLAUDE.md").symlink_to(project / "private" / "notes.md")
    (project / ".rift" / "skills").mkdir(parents=True)
    (project / ".rift" / "memory.md").symlink_to(config)
    (project / ".rift" / "skills" / "leak.md").symlink_to(outside)
    (project / ".rift" / "agents").mkdir()
    (project / ".rift" / "agents" / "spy.md").symlink_to(config)
    (project / ".rift" / "skills" / "fine.md").write_text(f"{VISIBLE} skill\n", encoding="utf-8")
    write_json(project / ".rift.json", {"host": "http://127.0.0.1:9"})
    url, log = logged_server

    result = run_rift(["-p", "hi", "--host", url, "-m", "fake-model"], project)

    assert result.returncode == 0, result.stderr
    sent = log.read_text(encoding="utf-8")
    assert '"/api/chat"' in sent
    assert f"{VISIBLE} skill" in sent  # the project's own files still arrive
    for secret in (SECRET, OUTSIDE, DENIED):
        assert secret not in sent
    assert SECRET not in result.stdout + result.stderr


def test_an_instruction_file_inside_the_project_still_arrives(
    project: Path, fake_server: Any
) -> None:
    (project / "docs").mkdir()
    (project / "docs" / "agents.md").write_text(f"{VISIBLE}\n", encoding="utf-8")
    (project / "AGENTS.md").symlink_to("docs/agents.md")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    server = fake_server({"turns": [{"content": "ok"}]})

    result = run_rift(["-p", "hi", "--host", server.url, "-m", "fake-model"], project)

    assert result.returncode == 0, result.stderr
    assert _bodies(server).count(VISIBLE) == 1  # once: CLAUDE.md is the same file


def test_the_users_own_skill_symlinked_out_of_the_config_dir_is_refused(
    project: Path, tmp_path: Path, fake_server: Any
) -> None:
    _user_config({})
    skills = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "skills"
    skills.mkdir(parents=True)
    ssh = _home() / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text(f"{OUTSIDE} key\n", encoding="utf-8")
    (skills / "key.md").symlink_to(ssh / "id_rsa")
    (skills / "mine.md").write_text(f"{VISIBLE} mine\n", encoding="utf-8")
    server = fake_server({"turns": [{"content": "ok"}]})

    result = run_rift(["-p", "hi", "--host", server.url, "-m", "fake-model"], project)

    assert result.returncode == 0, result.stderr
    sent = _bodies(server)
    assert f"{VISIBLE} mine" in sent
    assert OUTSIDE not in sent


def test_remember_never_copies_a_symlinked_memory_target_into_the_prompt(
    project: Path, tmp_path: Path, fake_server: Any
) -> None:
    outside = tmp_path / "notes.txt"
    outside.write_text(f"- {OUTSIDE}\n", encoding="utf-8")
    (project / ".rift").mkdir()
    (project / ".rift" / "memory.md").symlink_to(outside)
    calls = [
        {"name": "remember", "arguments": {"fact": OUTSIDE}},  # an oracle: "already remembered"?
        {"name": "remember", "arguments": {"fact": "tests run with make check"}},
    ]
    turns = [{"tool_calls": calls}, {"content": "ok"}, {"content": "ok"}]
    server = fake_server({"turns": turns})
    base = ["--host", server.url, "-m", "fake-model"]

    first = run_rift(["-p", "remember", *base], project)
    second = run_rift(["-p", "hi", *base], project)

    assert first.returncode in (0, 1) and second.returncode == 0, first.stderr + second.stderr
    assert OUTSIDE not in _bodies(server).replace(f'"fact": "{OUTSIDE}"', "")
    assert outside.read_text(encoding="utf-8") == f"- {OUTSIDE}\n"

"""Credential stores are Read-denied by default, and the edit tool is no content oracle.

Families "credential-read" and "edit-oracle" (bypass_corpus.json `pytest_cases`;
the in-process path cases are in its `deny` list). A scripted model calls the
tools the way a prompt injection would; what the tools answered is in the next
request the fake server logged, and no secret may be in it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from rift_bin import run_rift, write_json

pytestmark = pytest.mark.reliability

SECRET = "SECRET_TOKEN=7c1d2e3f4a5b"


def _home() -> Path:
    return Path(os.environ["HOME"])


def _plant(tmp_path: Path) -> dict[str, Path]:
    """A secret in every credential store the built-in guard covers."""
    home = _home()
    config_dir = Path(os.environ["XDG_CONFIG_HOME"]) / "rift"
    data_dir = Path(os.environ["XDG_DATA_HOME"]) / "rift"
    files = {
        "config": config_dir / "config.json",
        "trust": data_dir / "trusted-hooks.json",
        "ssh": home / ".ssh" / "id_rsa",
        "aws": home / ".aws" / "credentials",
        "gnupg": home / ".gnupg" / "secring.gpg",
        "netrc": home / ".netrc",
        "docker": home / ".docker" / "config.json",
        "kube": home / ".kube" / "config",
        "gh": home / ".config" / "gh" / "hosts.yml",
        "env": tmp_path / "elsewhere" / ".env.local",
    }
    for name, path in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if name == "config":
            path.write_text(json.dumps({"search_url": SECRET}), encoding="utf-8")
        elif name == "trust":
            path.write_text(json.dumps([SECRET]), encoding="utf-8")
        else:
            path.write_text(f"line one\n{SECRET}\n", encoding="utf-8")
    return files


def _later_requests(server: Any) -> str:
    chats = [r for r in server.requests() if "chat" in r["_path"]]
    return "\n".join(json.dumps(r) for r in chats[1:])


def _calls(files: dict[str, Path]) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    for name, path in files.items():
        calls.append({"id": f"r-{name}", "name": "read", "arguments": {"path": str(path)}})
        folder = str(path.parent)
        calls.append(
            {"id": f"g-{name}", "name": "grep", "arguments": {"pattern": "SECRET", "path": folder}}
        )
        calls.append({"id": f"l-{name}", "name": "ls", "arguments": {"path": folder}})
        calls.append({"id": f"b-{name}", "name": "bash", "arguments": {"command": f"cat {path}"}})
    calls.append(
        {"id": "glob", "name": "glob", "arguments": {"pattern": "**", "path": str(_home())}}
    )
    return _interleaved(calls)


def _interleaved(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A harmless call after each attack, so rift's stop-after-N-failures guard never trips."""
    out: list[dict[str, Any]] = []
    for i, call in enumerate(calls):
        out += [call, {"id": f"ok{i}", "name": "bash", "arguments": {"command": f"echo ok-{i}"}}]
    return out


def test_credential_stores_never_reach_the_model(
    project: Path, tmp_path: Path, fake_server: Any
) -> None:
    files = _plant(tmp_path)
    (project / ".env").write_text("PROJECT_ENV=visible-in-project\n", encoding="utf-8")
    calls = [*_calls(files), {"id": "own", "name": "read", "arguments": {"path": ".env"}}]
    server = fake_server({"turns": [{"tool_calls": calls}, {"content": "done"}]})

    result = run_rift(["-p", "go", "--host", server.url, "-m", "fake-model"], project)

    assert result.returncode in (0, 1), result.stderr
    later = _later_requests(server)
    assert "visible-in-project" in later, (
        result.stdout + result.stderr
    )  # the project's own .env stays readable
    assert "blocked by permission rule" in later
    assert SECRET not in later
    assert "7c1d2e3f4a5b" not in later


def test_the_user_can_lift_the_guard_in_their_own_config(
    project: Path, tmp_path: Path, fake_server: Any
) -> None:
    files = _plant(tmp_path)
    config = json.loads(files["config"].read_text(encoding="utf-8"))
    write_json(files["config"], {**config, "permissions": {"allow": ["Read(~/.aws/**)"]}})
    calls = [
        {"id": "aws", "name": "read", "arguments": {"path": str(files["aws"])}},
        {"id": "ssh", "name": "read", "arguments": {"path": str(files["ssh"])}},
    ]
    server = fake_server({"turns": [{"tool_calls": calls}, {"content": "done"}]})

    result = run_rift(["-p", "go", "--host", server.url, "-m", "fake-model"], project)

    assert result.returncode == 0, result.stderr
    results = [m for m in server.requests()[-1]["messages"] if m.get("role") == "tool"]
    assert len(results) == 2
    assert SECRET in results[0]["content"]  # lifted by the allow rule naming it
    assert SECRET not in results[1]["content"]  # ~/.ssh still guarded


def test_allow_credentials_lifts_every_store(
    project: Path, tmp_path: Path, fake_server: Any
) -> None:
    files = _plant(tmp_path)
    write_json(files["config"], {"permissions": {"allow_credentials": True}})
    calls = [{"id": "ssh", "name": "read", "arguments": {"path": str(files["ssh"])}}]
    server = fake_server({"turns": [{"tool_calls": calls}, {"content": "done"}]})

    result = run_rift(["-p", "go", "--host", server.url, "-m", "fake-model"], project)

    assert result.returncode == 0, result.stderr
    assert SECRET in _later_requests(server)


def test_edit_on_a_read_denied_file_is_no_oracle(project: Path, fake_server: Any) -> None:
    write_json(
        Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json",
        {"permissions": {"deny": ["Read(secrets/**)"]}},
    )
    (project / "secrets").mkdir()
    (project / "secrets" / "app.env").write_text(f"# config\n{SECRET}\n", encoding="utf-8")
    (project / "secrets" / "token.txt").write_text("x\n", encoding="utf-8")
    guesses = ["SECRET_TOKEN=7c1d", "SECRET_TOKEN=0000000000", "# config"]
    calls: list[dict[str, Any]] = [
        {
            "id": f"e{i}",
            "name": "edit",
            "arguments": {"path": "secrets/app.env", "old_string": g, "new_string": "y"},
        }
        for i, g in enumerate(guesses)
    ]
    calls.append({"id": "hint", "name": "read", "arguments": {"path": "tokn.txt"}})
    calls.append(
        {
            "id": "hint2",
            "name": "edit",
            "arguments": {"path": "app.envv", "old_string": "a", "new_string": "b"},
        }
    )
    calls = _interleaved(calls)
    server = fake_server({"turns": [{"tool_calls": calls}, {"content": "done"}]})

    result = run_rift(["-p", "go", "--host", server.url, "-m", "fake-model"], project)

    assert result.returncode in (0, 1), result.stderr
    results = [m for m in server.requests()[-1]["messages"] if m.get("role") == "tool"]
    assert len(results) == len(calls)
    attacks = results[::2]
    for message in attacks[: len(guesses)]:
        assert "blocked by permission rule" in message["content"]
    later = _later_requests(server)
    assert "7c1d2e3f4a5b" not in later
    assert "Closest match" not in later
    for message in attacks[len(guesses) :]:  # "Did you mean" never names a denied file
        assert "no such file" in message["content"]
        assert "secrets/" not in message["content"]
    assert (project / "secrets" / "app.env").read_text(encoding="utf-8").endswith(f"{SECRET}\n")

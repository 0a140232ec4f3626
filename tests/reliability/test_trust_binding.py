"""Trust is tied to the repository and to the code it runs.

Family "trust" (bypass_corpus.json `pytest_cases`). Trust is given for real,
through `rift --serve` answering the trust ask; the attacks then run headless,
where only what is already trusted may run.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rift_bin import rift_command, write_json
from serve_driver import ServeProcess

pytestmark = pytest.mark.reliability

HOOK = "sh ./lint.sh"
PLUGIN = {
    "name": "demo",
    "tools": [
        {"name": "probe", "description": "probe", "command": "sh .rift/plugins/demo/tool.sh"}
    ],
}


def _trust_everything(cwd: Path, server: Any) -> list[str]:
    """Start serve in `cwd`, answer every trust ask with "trust"; returns the questions."""
    serve = ServeProcess(cwd, "--host", server.url, "-m", "fake-model")
    try:
        serve.until("ready")
        serve.send({"cmd": "hello"})
        questions = []
        serve.until("capabilities")
        while True:
            try:
                ask = serve.until("ask", timeout=3)
            except AssertionError:
                break
            questions.append(ask["question"])
            serve.send({"cmd": "answer", "id": ask["id"], "text": "trust"})
            serve.until("info")
        assert serve.close() == 0
    finally:
        if serve.proc.poll() is None:
            serve.proc.kill()
    return questions


def _write_turns() -> dict[str, Any]:
    call = {"name": "write", "arguments": {"path": "a.txt", "content": "x\n"}}
    return {"turns": [{"tool_calls": [call]}, {"content": "written"}]}


def _repo_with_hook(path: Path) -> Path:
    path.mkdir()
    write_json(path / ".rift.json", {"hooks": {"post_edit": [HOOK]}})
    (path / "lint.sh").write_text("touch lint-ran\n", encoding="utf-8")
    return path


def _repo_with_plugin(path: Path) -> Path:
    plugin = path / ".rift" / "plugins" / "demo"
    plugin.mkdir(parents=True)
    (plugin / "plugin.json").write_text(json.dumps(PLUGIN), encoding="utf-8")
    (plugin / "tool.sh").write_text("echo probe-output\n", encoding="utf-8")
    return path


def _headless(cwd: Path, server: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*rift_command(), "-p", "go", "--host", server.url, "-m", "fake-model"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=90,
        stdin=subprocess.DEVNULL,
        env=dict(os.environ),
    )


def _tools_offered(server: Any) -> list[str]:
    chats = [r for r in server.requests() if "chat" in r["_path"]]
    return [t["function"]["name"] for t in chats[0].get("tools") or []]


def test_a_hook_trusted_in_one_repository_does_not_run_in_another(
    tmp_path: Path, fake_server: Any
) -> None:
    repo_a = _repo_with_hook(tmp_path / "a")
    repo_b = _repo_with_hook(tmp_path / "b")
    assert _trust_everything(repo_a, fake_server({})) == [f"Trust project hook: {HOOK}?"]

    run_b = _headless(repo_b, fake_server(_write_turns()))
    assert run_b.returncode == 0, run_b.stderr
    assert (repo_b / "a.txt").exists()
    assert not (repo_b / "lint-ran").exists()

    run_a = _headless(repo_a, fake_server(_write_turns()))  # control: trusted where it was
    assert run_a.returncode == 0, run_a.stderr
    assert (repo_a / "lint-ran").exists()


def test_editing_a_trusted_plugins_script_asks_again(tmp_path: Path, fake_server: Any) -> None:
    repo = _repo_with_plugin(tmp_path / "a")
    assert len(_trust_everything(repo, fake_server({}))) == 1
    trusted = fake_server({"turns": [{"content": "ok"}]})
    assert _headless(repo, trusted).returncode == 0
    assert "probe" in _tools_offered(trusted)  # control: trusted as it was

    (repo / ".rift" / "plugins" / "demo" / "tool.sh").write_text("touch pwned\n", encoding="utf-8")
    edited = fake_server({"turns": [{"content": "ok"}]})
    run = _headless(repo, edited)
    assert run.returncode == 0, run.stderr
    assert "probe" not in _tools_offered(edited)
    assert "1 untrusted project plugin skipped" in run.stderr


def test_a_plugin_dir_symlinked_to_a_trusted_one_is_not_trusted(
    tmp_path: Path, fake_server: Any
) -> None:
    repo_a = _repo_with_plugin(tmp_path / "a")
    assert len(_trust_everything(repo_a, fake_server({}))) == 1
    repo_b = tmp_path / "b"
    (repo_b / ".rift" / "plugins").mkdir(parents=True)
    (repo_b / ".rift" / "plugins" / "demo").symlink_to(repo_a / ".rift" / "plugins" / "demo")

    server = fake_server({"turns": [{"content": "ok"}]})
    run = _headless(repo_b, server)
    assert run.returncode == 0, run.stderr
    assert "probe" not in _tools_offered(server)


def test_a_plugin_rewritten_during_the_session_does_not_run(
    tmp_path: Path, fake_server: Any
) -> None:
    repo = _repo_with_plugin(tmp_path / "a")
    assert len(_trust_everything(repo, fake_server({}))) == 1
    script = repo / ".rift" / "plugins" / "demo" / "tool.sh"
    rewrite = {"command": f"printf 'touch pwned\\n' > {script}"}
    turns = [
        {"tool_calls": [{"name": "bash", "arguments": rewrite}]},
        {"tool_calls": [{"name": "probe", "arguments": {}}]},
        {"content": "done"},
    ]
    server = fake_server({"turns": turns})
    run = _headless(repo, server)
    assert run.returncode in (0, 1), run.stderr
    assert "probe" in _tools_offered(server)  # trusted at startup
    assert not (repo / "pwned").exists()
    if script.read_text(encoding="utf-8") != "echo probe-output\n":  # the rewrite got through
        chats = [r for r in server.requests() if "chat" in r["_path"]]
        assert "changed on disk since it was trusted" in json.dumps(chats[-1]["messages"])

"""Language servers never run the repository's code, and no child process sees rift's
API keys (issue 30, High). Real rift, a scripted model, and a stand-in
`typescript-language-server` on PATH that behaves like the real one: it loads
`initializationOptions.tsserver.path`, else the workspace's
`node_modules/typescript/lib/tsserver.js`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from rift_bin import run_rift, write_json

FAKE_SERVER = r"""#!PYTHON
import json, os, subprocess, sys
marks = os.environ["LSP_MARKS"]
open(os.path.join(marks, "server-env.json"), "w").write(json.dumps(sorted(os.environ)))

def read():
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(sys.stdin.buffer.read(length))

def send(message):
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()

while True:
    msg = read()
    method = msg.get("method")
    if method == "initialize":
        options = msg["params"].get("initializationOptions") or {}
        path = (options.get("tsserver") or {}).get("path")
        if not path:
            path = os.path.join(os.getcwd(), "node_modules/typescript/lib/tsserver.js")
        subprocess.run(["sh", path])
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"capabilities": {}}})
    elif method == "textDocument/didOpen" or method == "textDocument/didChange":
        uri = msg["params"]["textDocument"]["uri"]
        version = msg["params"]["textDocument"].get("version")
        send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
              "params": {"uri": uri, "version": version, "diagnostics": []}})
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
    elif method == "exit":
        sys.exit(0)
    elif "id" in msg:
        send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
"""

SECRET = "sk-test-0123456789abcdef"


def _tsserver(path: Path, mark: str, marks: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'env > "{marks}/{mark}"\n')


@pytest.fixture
def setup(tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    marks = tmp_path / "marks"
    marks.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    server = bin_dir / "typescript-language-server"
    server.write_text(FAKE_SERVER.replace("PYTHON", sys.executable))
    server.chmod(0o755)
    _tsserver(project / "node_modules/typescript/lib/tsserver.js", "repo-tsserver", marks)
    (project / "a.ts").write_text("export const a = 1;\n")
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "LSP_MARKS": str(marks),
        "OPENAI_API_KEY": SECRET,
        "RIFT_EXTRA_TOKEN": "rift-token-value",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return {"marks": marks, "bin": bin_dir}


def _edit_a_ts(project: Path, fake_server: Any) -> Any:
    edit = {
        "name": "edit",
        "arguments": {"path": "a.ts", "old_string": "= 1", "new_string": "= 2"},
    }
    bash = {"name": "bash", "arguments": {"command": "env > bash-env.txt"}}
    model = fake_server({"turns": [{"tool_calls": [edit, bash]}, {"content": "done"}]})
    run = run_rift(["-p", "edit", "--host", model.url, "-m", "fake-model"], project)
    assert run.returncode == 0, run.stderr
    assert (project / "a.ts").read_text() == "export const a = 2;\n"
    return run


def test_the_repositorys_tsserver_never_runs(
    project: Path, fake_server: Any, setup: dict[str, Any], tmp_path: Path
) -> None:
    """No tsserver of the user's own: the TypeScript server is not started at all."""
    _edit_a_ts(project, fake_server)
    marks: Path = setup["marks"]
    assert not (marks / "repo-tsserver").exists()
    assert not (marks / "server-env.json").exists()


def test_the_users_own_tsserver_is_passed(
    project: Path, fake_server: Any, setup: dict[str, Any], tmp_path: Path
) -> None:
    marks: Path = setup["marks"]
    package = tmp_path / "global/lib/node_modules/typescript"
    _tsserver(package / "lib/tsserver.js", "user-tsserver", marks)
    (package / "bin").mkdir()
    (package / "bin/tsserver").write_text("#!/bin/sh\n")
    (package / "bin/tsserver").chmod(0o755)
    (setup["bin"] / "tsserver").symlink_to(package / "bin/tsserver")
    _edit_a_ts(project, fake_server)
    assert (marks / "user-tsserver").exists()
    assert not (marks / "repo-tsserver").exists()
    server_env = json.loads((marks / "server-env.json").read_text())
    assert "LSP_MARKS" in server_env
    assert "OPENAI_API_KEY" not in server_env and "RIFT_EXTRA_TOKEN" not in server_env
    user_tsserver_env = (marks / "user-tsserver").read_text()
    assert SECRET not in user_tsserver_env


def test_a_server_binary_inside_the_project_is_not_started(
    project: Path, fake_server: Any, setup: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    local_bin = project / "node_modules/.bin"
    local_bin.mkdir(parents=True)
    (setup["bin"] / "typescript-language-server").rename(local_bin / "typescript-language-server")
    monkeypatch.setenv("PATH", f"{local_bin}{os.pathsep}{os.environ['PATH']}")
    _edit_a_ts(project, fake_server)
    assert not (setup["marks"] / "server-env.json").exists()


def test_bash_gets_no_api_keys_unless_the_user_opts_in(
    project: Path, fake_server: Any, setup: dict[str, Any]
) -> None:
    _edit_a_ts(project, fake_server)
    seen = (project / "bash-env.txt").read_text()
    assert SECRET not in seen and "RIFT_EXTRA_TOKEN" not in seen
    assert "LSP_MARKS=" in seen
    (project / "a.ts").write_text("export const a = 1;\n")
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "rift/config.json"
    write_json(config, {"permissions": {"pass_api_keys": True}})
    _edit_a_ts(project, fake_server)
    assert f"OPENAI_API_KEY={SECRET}" in (project / "bash-env.txt").read_text()


def test_a_project_cannot_opt_in(project: Path, fake_server: Any, setup: dict[str, Any]) -> None:
    write_json(project / ".rift.json", {"permissions": {"pass_api_keys": True}})
    run = _edit_a_ts(project, fake_server)
    assert SECRET not in (project / "bash-env.txt").read_text()
    assert "ignoring 'permissions.pass_api_keys'" in run.stderr

"""The real `rift` binary in a real terminal (tmux): one prompt, then /quit."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ENV_KEYS = ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "PATH")


def rift_command() -> list[str]:
    """The rift under test: RIFT_BIN when set (as in tests/conftest.py)."""
    custom = os.environ.get("RIFT_BIN")
    return custom.split() if custom else [sys.executable, "-m", "rift"]


@pytest.fixture
def tmux() -> Iterator[Any]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux not installed")
    socket = f"rift-test-{uuid.uuid4().hex[:12]}"

    def run(*args: str) -> str:
        out = subprocess.run(
            ["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=10
        )
        return out.stdout

    yield run
    run("kill-server")


def _wait_for(tmux: Any, text: str, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-t", "rift")
        if text in screen:
            return screen
        time.sleep(0.05)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")


def test_one_prompt_and_quit_in_tmux(tmux: Any, project: Path, fake_server: Any) -> None:
    server = fake_server({"turns": [{"content": "Hi from the *fake* model."}]})
    env = {k: os.environ[k] for k in ENV_KEYS if k in os.environ}
    env["TERM"] = "xterm-256color"
    command = [*rift_command(), "--host", server.url, "-m", "fake-model"]
    line = (
        f"cd {shlex.quote(str(project))} && env {shlex.join(f'{k}={v}' for k, v in env.items())}"
        f" {shlex.join(command)}; echo RIFT-EXITED-$?; sleep 30"
    )
    tmux("new-session", "-d", "-s", "rift", "-x", "120", "-y", "40", line)
    _wait_for(tmux, "Ask rift to do something")
    _wait_for(tmux, "ready")  # the model is bound
    tmux("send-keys", "-t", "rift", "-l", "hello there")
    tmux("send-keys", "-t", "rift", "Enter")
    screen = _wait_for(tmux, "Hi from the fake model.")
    assert "› hello there" in screen
    tmux("send-keys", "-t", "rift", "-l", "/quit")
    tmux("send-keys", "-t", "rift", "Enter")
    _wait_for(tmux, "RIFT-EXITED-0")
    assert "hello there" in str(server.chat_requests()[-1]["messages"])


def _start(tmux: Any, project: Path, url: str, size: tuple[int, int]) -> None:
    env = {k: os.environ[k] for k in ENV_KEYS if k in os.environ}
    env["TERM"] = "xterm-256color"
    command = [*rift_command(), "--host", url, "-m", "fake-model"]
    line = (
        f"cd {shlex.quote(str(project))} && env {shlex.join(f'{k}={v}' for k, v in env.items())}"
        f" {shlex.join(command)}; echo RIFT-EXITED-$?; sleep 30"
    )
    tmux("new-session", "-d", "-s", "rift", "-x", str(size[0]), "-y", str(size[1]), line)


def _type(tmux: Any, text: str) -> None:
    tmux("send-keys", "-t", "rift", "-l", text)
    tmux("send-keys", "-t", "rift", "Enter")


def test_a_whole_session_at_80x24(tmux: Any, project: Path, fake_server: Any) -> None:
    """Approve a long command, see its tool line, cancel a turn with Ctrl+C, quit."""
    command = "echo start && " + " && ".join(f"echo step-{n}" for n in range(12)) + " && echo TAIL"
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]},
                {"content": "All steps ran."},
                {"content": "Thinking out loud", "never_end": " more", "chunk_delay": 0.1},
            ]
        }
    )
    _start(tmux, project, server.url, (80, 24))
    _wait_for(tmux, "Ask rift to do something")
    _type(tmux, "run the steps")  # typed as soon as the screen is up: kept until bound
    screen = _wait_for(tmux, "1. allow once")
    assert "echo TAIL" in screen  # the whole command, wrapped inside the dialog
    assert "Esc cancel" in screen  # the key hints fit at 80x24
    tmux("send-keys", "-t", "rift", "1")
    screen = _wait_for(tmux, "All steps ran.")
    assert "✓ bash echo start" in screen
    _type(tmux, "keep talking")
    _wait_for(tmux, "· writing")  # the spinner line: elapsed seconds and the phase
    tmux("send-keys", "-t", "rift", "C-c")
    _wait_for(tmux, "turn cancelled")
    _wait_for(tmux, "ready")
    tmux("send-keys", "-t", "rift", "C-c")
    _wait_for(tmux, "Ctrl+C again")
    tmux("send-keys", "-t", "rift", "C-c")
    _wait_for(tmux, "RIFT-EXITED-0")
    sent = [str(r["messages"]) for r in server.chat_requests()]
    assert "run the steps" in sent[0] and "keep talking" in sent[-1]


def test_a_prompt_typed_while_rift_starts_is_sent(
    tmux: Any, project: Path, fake_server: Any
) -> None:
    """Typed before the first frame (the terminal still in line mode): kept and sent."""
    server = fake_server({"turns": [{"content": "Early bird answer."}]})
    _start(tmux, project, server.url, (100, 30))
    _type(tmux, "typed at once")
    screen = _wait_for(tmux, "Early bird answer.")
    assert "› typed at once" in screen


EDITOR = """\
import json, sys
print("EDITOR-OPEN " + sys.argv[-1], flush=True)
answer = input("type the port: ")  # the keys reach the editor, not rift
with open(sys.argv[-1], encoding="utf-8") as f:
    data = json.load(f)
data["search_url"] = "http://searx.example:" + answer.strip()
with open(sys.argv[-1], "w", encoding="utf-8") as f:
    json.dump(data, f)
"""


def test_config_edit_hands_the_terminal_to_the_editor(
    tmux: Any, project: Path, fake_server: Any, tmp_path: Path
) -> None:
    """`/config edit` suspends the app: the editor owns the screen and the keys until
    it exits, then rift comes back and the saved setting is live."""
    script = tmp_path / "editor.py"
    script.write_text(EDITOR)
    server = fake_server({"turns": []})
    env = {k: os.environ[k] for k in ENV_KEYS if k in os.environ}
    env.update(TERM="xterm-256color", EDITOR=f"{sys.executable} {script}")
    command = [*rift_command(), "--host", server.url, "-m", "fake-model"]
    line = (
        f"cd {shlex.quote(str(project))} && env {shlex.join(f'{k}={v}' for k, v in env.items())}"
        f" {shlex.join(command)}; echo RIFT-EXITED-$?; sleep 30"
    )
    tmux("new-session", "-d", "-s", "rift", "-x", "120", "-y", "40", line)
    _wait_for(tmux, "ready")
    tmux("send-keys", "-t", "rift", "-l", "/config edit")
    _wait_for(tmux, "│ /config edit")
    tmux("send-keys", "-t", "rift", "Enter")
    screen = _wait_for(tmux, "type the port:")
    assert "EDITOR-OPEN" in screen and "config.json" in screen
    _type(tmux, "8888")
    _wait_for(tmux, "settings reloaded")
    _type(tmux, "/config")
    _wait_for(tmux, "http://searx.example:8888")
    _type(tmux, "/quit")
    _wait_for(tmux, "RIFT-EXITED-0")

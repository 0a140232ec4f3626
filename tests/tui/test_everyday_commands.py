"""The everyday commands in the TUI (issue 32), through a Textual pilot."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from .conftest import connected, drive, idle, send, transcript_text, until


def test_tools_share_and_retry_from_the_composer(tui: Any, project: Path) -> None:
    app, server = tui([{"content": "first answer"}, {"content": "second answer"}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/tools")
        await until(pilot, lambda: "tools:" in transcript_text(app), "the tool list")
        assert "edit:" in transcript_text(app)
        await send(pilot, "say something")
        await until(pilot, lambda: "first answer" in transcript_text(app), "the first turn")
        await idle(pilot)
        await send(pilot, "/retry")
        await until(pilot, lambda: "second answer" in transcript_text(app), "the retried turn")
        await idle(pilot)
        await send(pilot, "/share chat.html")
        await until(pilot, lambda: (project / "chat.html").exists(), "the transcript file")

    drive(app, scenario)
    page = (project / "chat.html").read_text()
    assert "second answer" in page and "first answer" not in page  # the retry replaced it
    users = [m for m in server.chat_requests()[-1]["messages"] if m["role"] == "user"]
    assert [m["content"] for m in users] == ["say something"]


EDITOR_SCRIPT = """\
import json, sys
path = sys.argv[-1]
with open(path, encoding="utf-8") as f:
    data = json.load(f)
data["search_url"] = "http://searx.example:8888"
with open(path, "w", encoding="utf-8") as f:
    json.dump(data, f)
"""


def test_config_edit_opens_the_editor_and_reloads_what_it_saved(
    tui: Any, project: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    """$EDITOR is a script that adds a setting to the file it is given: the file is
    created with the skeleton first, the app waits for the editor, and the setting is
    live when it exits."""
    editor = tmp_path / "editor.py"
    editor.write_text(EDITOR_SCRIPT)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    app, _ = tui([])
    user_config = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json"

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/config edit")
        await until(pilot, lambda: "settings reloaded" in transcript_text(app), "the reload")
        await send(pilot, "/config")
        await until(pilot, lambda: "searx.example" in transcript_text(app), "the new setting")

    drive(app, scenario)
    saved = json.loads(user_config.read_text())
    assert saved["search_url"] == "http://searx.example:8888"
    assert "// model" in saved  # the skeleton the editor was handed


def test_config_edit_without_an_editor_says_what_to_set(
    tui: Any, project: Path, monkeypatch: Any
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    app, _ = tui([])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/config edit")
        await until(pilot, lambda: "no editor set" in transcript_text(app), "the hint")

    drive(app, scenario)

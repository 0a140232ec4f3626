"""The everyday commands in the TUI (issue 32), through a Textual pilot."""

from __future__ import annotations

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

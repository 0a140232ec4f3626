"""The input box: newline keys, paste, history, the / palette and @ mentions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual import events
from textual.pilot import Pilot

from .conftest import connected, drive, idle, send, transcript_text, until


def test_newline_keys_paste_and_history(tui: Any) -> None:
    app, server = tui([{"content": "one"}, {"content": "two"}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        prompt = app.composer.input
        await pilot.press("a", "ctrl+j", "b")
        assert prompt.text == "a\nb"
        app.post_message(events.Paste("pasted\nlines\n"))  # as the driver delivers it
        await pilot.pause()
        assert prompt.text == "a\nbpasted\nlines\n"
        assert not app.driver.busy  # a paste never sends
        prompt.clear()
        await send(pilot, "first prompt")
        await idle(pilot)
        await send(pilot, "second\nprompt")
        await idle(pilot)
        await pilot.press("alt+up")
        assert prompt.text == "second\nprompt"
        await pilot.press("alt+up")
        assert prompt.text == "first prompt"
        await pilot.press("alt+down", "alt+down")
        assert prompt.text == ""

    drive(app, scenario)
    assert "second\\nprompt" in json.dumps(server.chat_requests()[-1]["messages"])


def test_slash_palette_completes_and_runs(tui: Any) -> None:
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        palette = app.composer.palette
        await pilot.press("/", "t")
        await until(pilot, lambda: palette.display, "the palette")
        labels = [str(palette.get_option_at_index(i).prompt) for i in range(palette.option_count)]
        assert [label.split()[0] for label in labels] == [
            "/temp",
            "/tokens",
            "/tasks",
            "/think",
            "/tools",
        ]
        await pilot.press("down", "tab")
        assert app.composer.input.text == "/tokens"
        await pilot.press("escape")
        assert not palette.display
        await pilot.press("enter")
        await until(pilot, lambda: "compaction budget" in transcript_text(app), "/tokens")
        await pilot.press("/", "s", "t", "a")
        await until(pilot, lambda: palette.display, "the palette again")
        await pilot.pause()
        await pilot.press("enter")  # /stats takes no argument: Enter completes and runs it
        await until(pilot, lambda: "turns: 0" in transcript_text(app), "/stats")

    drive(app, scenario)


def test_at_mentions_complete_and_attach(tui: Any, project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "widget.py").write_text("def widget():\n    return 42\n")
    app, server = tui([{"content": "seen"}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await pilot.press(*"explain @wid")
        await until(pilot, lambda: app.composer.palette.display, "the file palette")
        await pilot.press("tab")
        assert app.composer.input.text == "explain @src/widget.py "
        await pilot.press("enter")
        await idle(pilot)
        assert "attached: src/widget.py" in transcript_text(app)

    drive(app, scenario)
    sent = json.dumps(server.chat_requests()[-1]["messages"])
    assert "return 42" in sent


def test_an_exact_command_name_wins_over_a_longer_prefix_match(tui: Any) -> None:
    """Issue 32 regression 2: `/mode` + Enter ran `/model`, the first prefix match."""
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        palette = app.composer.palette
        await pilot.press(*"/mode")
        await until(pilot, lambda: palette.display, "the palette")
        labels = [str(palette.get_option_at_index(i).prompt) for i in range(palette.option_count)]
        assert labels[0].split()[0] == "/mode", labels  # the exact name is offered first
        await pilot.press("enter")
        await until(pilot, lambda: "approval mode:" in transcript_text(app), "/mode")
        assert "models" not in transcript_text(app).lower().split("approval mode:")[0][-200:]

    drive(app, scenario)

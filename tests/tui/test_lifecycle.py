"""The conversation's lifecycle from the TUI: /clear starts a new one, option changes keep it.

Asserted through what a person can check afterwards: the session files on
disk, what the model was sent, and what /undo and /rewind do to the files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from rift.frontends.tui.screens.picker import PickerScreen

from .conftest import connected, drive, idle, send, transcript_text, until


def _sessions() -> dict[Path, str]:
    folder = Path(os.environ["XDG_DATA_HOME"]) / "rift" / "sessions"
    return {p: p.read_text() for p in sorted(folder.glob("*.json"))} if folder.exists() else {}


def test_clear_starts_a_new_conversation_and_the_old_one_stays_resumable(tui: Any) -> None:
    app, server = tui(
        [
            {"match": "question one", "content": "First answer."},
            {"match": "question two", "content": "Second answer."},
            {"match": "fresh start", "content": "Fresh answer."},
        ]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "question one")
        await idle(pilot)
        await send(pilot, "question two")
        await idle(pilot)
        await send(pilot, "/clear")
        await until(pilot, lambda: "conversation cleared" in transcript_text(app), "/clear")
        assert "First answer." not in transcript_text(app)
        saved = [text for text in _sessions().values() if "question one" in text]
        assert len(saved) == 1, "the cleared conversation must stay on disk"
        assert "Second answer." in saved[0]
        await send(pilot, "fresh start")
        await until(pilot, lambda: "Fresh answer." in transcript_text(app), "the new reply")
        await idle(pilot)
        await send(pilot, "/sessions")
        picker = await until(
            pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen, "the sessions"
        )
        assert any("question one" in choice for choice in picker.choices)
        await pilot.press("escape")

    drive(app, scenario)
    sent = json.dumps(server.chat_requests()[-1]["messages"])
    assert "fresh start" in sent
    assert "question one" not in sent  # the model starts from nothing too
    files = _sessions()
    old = [text for text in files.values() if "question one" in text]
    new = [text for text in files.values() if "fresh start" in text]
    assert len(old) == 1 and "fresh start" not in old[0]
    assert len(new) == 1 and "question one" not in new[0]


def _write_turns(name: str) -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"name": "write", "arguments": {"path": name, "content": "1\n"}}]},
        {"content": f"wrote {name}"},
        {"content": "still here"},
    ]


@pytest.mark.parametrize("option", ["/temp 0.4", "/ctx 16384", "/host"])
def test_an_option_change_keeps_the_undo_journal(tui: Any, project: Path, option: str) -> None:
    app, server = tui(_write_turns("made.txt"))
    command = f"/host {server.url}" if option == "/host" else option

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/yolo")
        await send(pilot, "write made.txt")
        await idle(pilot)
        assert (project / "made.txt").exists()
        await send(pilot, command)
        await until(
            pilot,
            lambda: any(s in transcript_text(app) for s in ("saved to", "temperature set to")),
            f"{command} to land",
        )
        await send(pilot, "/undo")
        await until(
            pilot,
            lambda: (
                "restored to pre-turn state" in transcript_text(app)
                or "nothing to undo" in transcript_text(app)
            ),
            "undo's answer",
        )
        assert "nothing to undo" not in transcript_text(app)
        assert not (project / "made.txt").exists()
        await send(pilot, "are you there?")
        await until(pilot, lambda: "still here" in transcript_text(app), "the next reply")
        await idle(pilot)

    drive(app, scenario)
    sent = json.dumps(server.chat_requests()[-1]["messages"])
    assert "write made.txt" in sent  # the conversation carried over the option change


def test_rewind_after_an_option_change(tui: Any, project: Path) -> None:
    app, server = tui(_write_turns("again.txt"))

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/yolo")
        await send(pilot, "write again.txt")
        await idle(pilot)
        await send(pilot, "/temp 0.3")
        await until(pilot, lambda: "temperature set to 0.3" in transcript_text(app), "/temp")
        await send(pilot, "/rewind")
        await until(
            pilot,
            lambda: "rewound 1 turn" in transcript_text(app) or "! " in transcript_text(app),
            "the rewind",
        )
        assert "rewound 1 turn" in transcript_text(app), transcript_text(app)
        assert not (project / "again.txt").exists()
        await send(pilot, "are you there?")
        await until(pilot, lambda: "still here" in transcript_text(app), "the next reply")
        await idle(pilot)

    drive(app, scenario)
    sent = json.dumps(server.chat_requests()[-1]["messages"])
    assert "write again.txt" not in sent


def test_continue_after_an_offline_start_opens_the_session_once_bound(
    tui: Any, fake_server: Any, project: Path
) -> None:
    from .test_resume import write_long_session

    write_long_session(project, turns=2)
    server = fake_server({"turns": []})
    app, _ = tui(host="http://127.0.0.1:9", continue_last=True)

    async def scenario(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: "No model is connected" in transcript_text(app), "offline")
        await send(pilot, f"/host {server.url}")
        await connected(pilot)
        await until(pilot, lambda: "Answer **1**" in transcript_text(app), "the history")

    drive(app, scenario)

"""Slash commands, the offline banner, /host and /model binding, resume."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from rift.core import history
from rift.frontends.tui.commands import COMMANDS, is_command
from rift.frontends.tui.screens.picker import PickerScreen

from .conftest import connected, drive, idle, send, transcript_text, until

DEAD_HOST = "http://127.0.0.1:9"  # discard port: nothing listens there


def _user_config() -> dict[str, Any]:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json"
    return json.loads(path.read_text()) if path.exists() else {}


def test_command_shapes() -> None:
    assert is_command("/help")
    assert is_command("/skill:review the diff")
    assert not is_command("/etc/hosts is broken")
    assert not is_command("please /help")
    assert set(COMMANDS) >= {
        "help", "model", "host", "ctx", "temp", "approve", "yolo", "permissions", "undo",
        "rewind", "compact", "tokens", "stats", "clear", "sessions", "save", "plan", "tasks",
        "skills", "diff", "copy", "export", "quit",
    }  # fmt: skip


def test_help_unknown_and_approval_commands(tui: Any) -> None:
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/help")
        await until(pilot, lambda: "/rewind [n]" in transcript_text(app), "the help text")
        await send(pilot, "/frobnicate now")
        await until(
            pilot,
            lambda: (
                "unknown command '/frobnicate' — /help lists available commands"
                in transcript_text(app)
            ),
            "the unknown-command line",
        )
        assert app.status_bar.state.mode != "auto"
        await send(pilot, "/yolo")
        await until(pilot, lambda: app.status_bar.state.mode == "auto", "approval off")
        assert app.driver.conversation is not None and not app.driver.conversation.state.approve
        await send(pilot, "/approve")
        await until(pilot, lambda: app.status_bar.state.mode != "auto", "approval on")

    drive(app, scenario)


def test_offline_start_shows_a_banner_and_host_connects(tui: Any, fake_server: Any) -> None:
    app, server = tui(host=DEAD_HOST)

    async def scenario(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: "No model is connected" in transcript_text(app), "the banner")
        text = transcript_text(app)
        for hint in ("--host", "RIFT_HOST", '"host"', "/host URL", "/model NAME"):
            assert hint in text
        assert app.driver.conversation is None
        assert app.status_bar.state.model == "(offline)"
        await send(pilot, "hello?")
        await until(pilot, lambda: "no model is connected" in transcript_text(app), "refusal")
        assert app.composer.input.text == "hello?"  # the draft is kept
        app.composer.input.clear()
        await send(pilot, f"/host {server.url}")
        await connected(pilot)
        assert app.status_bar.state.model == "fake-model"

    drive(app, scenario)
    assert _user_config()["host"] == server.url


def test_model_picker_switches_and_persists(tui: Any) -> None:
    models = [
        {"name": "fake-model", "capabilities": ["tools"], "context_length": 32768},
        {"name": "other-model", "capabilities": ["tools"], "context_length": 16384},
    ]
    app, _ = tui(models=models)

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/model")
        picker = await until(
            pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen, "the model picker"
        )
        assert picker.choices[:2] == ["fake-model", "other-model"]
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.status_bar.state.model == "other-model", "the switch")

    drive(app, scenario)
    assert _user_config()["model"] == "other-model"


def test_ctx_rebinds_and_persists(tui: Any) -> None:
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        conversation = (await connected(pilot)).driver.conversation
        await send(pilot, "/ctx 16384")
        await until(pilot, lambda: app.status_bar.state.limit == 16384, "the new gauge")
        assert app.driver.conversation is conversation  # the same conversation, rebound

    drive(app, scenario)
    assert _user_config()["num_ctx"] == 16384


def test_undo_and_rewind_restore_files(tui: Any, project: Path) -> None:
    app, _ = tui(
        [
            {"tool_calls": [{"name": "write", "arguments": {"path": "new.txt", "content": "1\n"}}]},
            {"content": "wrote it"},
        ]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/yolo")
        await send(pilot, "write new.txt")
        await idle(pilot)
        assert (project / "new.txt").exists()
        conversation = app.driver.conversation
        assert conversation is not None
        assert [m.text for m in history(conversation)][:1] == ["write new.txt"]
        await send(pilot, "/rewind")
        await until(pilot, lambda: "rewound 1 turn(s)" in transcript_text(app), "the rewind")
        assert not (project / "new.txt").exists()
        assert history(conversation) == []
        assert "write new.txt" not in transcript_text(app)
        await send(pilot, "/undo")
        await until(pilot, lambda: "nothing to undo" in transcript_text(app), "undo's answer")

    drive(app, scenario)


def test_continue_shows_the_prior_conversation(tui: Any, project: Path) -> None:
    sessions = Path(os.environ["XDG_DATA_HOME"]) / "rift" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "earlier.json").write_text(
        json.dumps(
            {
                "model": "fake-model",
                "saved_at": int(time.time()),
                "cwd": str(project),
                "messages": [
                    {"role": "system", "content": "sys"},
                    {"role": "user", "content": "what is in the repo?"},
                    {"role": "assistant", "content": "A **tiny** project."},
                ],
            }
        )
    )
    app, _ = tui(continue_last=True)

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await until(pilot, lambda: "A **tiny** project." in transcript_text(app), "history")
        text = transcript_text(app)
        assert "› what is in the repo?" in text
        assert "resumed session" in text

    drive(app, scenario)


def test_export_and_stats(tui: Any, project: Path) -> None:
    app, _ = tui([{"content": "All good."}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "status?")
        await idle(pilot)
        await send(pilot, "/export out.md")
        await until(pilot, lambda: (project / "out.md").exists(), "the export")
        await send(pilot, "/stats")
        await until(pilot, lambda: "turns: 1" in transcript_text(app), "the stats")

    drive(app, scenario)
    exported = (project / "out.md").read_text()
    assert "## You\n\nstatus?" in exported
    assert "## rift\n\nAll good." in exported


def test_ctrl_d_flips_to_a_live_git_diff(tui: Any, project: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "tracked.txt").write_text("old line\n")
    subprocess.run(["git", "add", "tracked.txt"], cwd=project, check=True)
    (project / "tracked.txt").write_text("new line\n")
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await pilot.press("ctrl+d")
        assert app.activity.showing_diff
        diff = app.activity.query_one("#diff-text", Static)
        await until(pilot, lambda: "+new line" in str(diff.content), "the diff")
        assert "-old line" in str(diff.content)
        await pilot.press("ctrl+d")
        assert not app.activity.showing_diff

    drive(app, scenario)


def test_conversation_commands(tui: Any, project: Path) -> None:
    skill = project / ".rift" / "skills" / "haiku.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\ndescription: answer in a haiku\n---\nWrite a haiku.\n")
    app, server = tui(
        [
            {"content": "First answer."},
            {"match": "Transcript:", "content": "Summary: the user asked twice."},
            {"content": "Second answer."},
            {"match": "SKILL: haiku", "content": "Old pond, a frog."},
        ]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "question one")
        await idle(pilot)
        await send(pilot, "question two")
        await idle(pilot)
        await send(pilot, "/compact")
        await until(pilot, lambda: "compacted:" in transcript_text(app), "/compact")
        conversation = app.driver.conversation
        assert conversation is not None
        assert "Summary: the user asked twice." in conversation.session_path.read_text()
        await send(pilot, "/skills")
        await until(
            pilot, lambda: "/skill:haiku — answer in a haiku" in transcript_text(app), "/skills"
        )
        await send(pilot, "/skill:haiku about ponds")
        await until(pilot, lambda: "Old pond, a frog." in transcript_text(app), "the skill turn")
        await idle(pilot)
        await send(pilot, "/save keeper")
        await until(pilot, lambda: "session saved as" in transcript_text(app), "/save")
        await send(pilot, "/clear")
        await until(pilot, lambda: "conversation cleared" in transcript_text(app), "/clear")
        assert history(conversation) == []
        await send(pilot, "/sessions")
        picker = await until(
            pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen, "the sessions"
        )
        assert any("question two" in choice for choice in picker.choices)
        await pilot.press("enter")
        await until(pilot, lambda: "resumed session" in transcript_text(app), "the resume")

    drive(app, scenario)
    saved = Path(os.environ["XDG_DATA_HOME"]) / "rift" / "sessions" / "keeper.json"
    assert "question two" in saved.read_text()
    assert any("SKILL: haiku" in json.dumps(r["messages"]) for r in server.chat_requests())

"""Session settings from the prompt: approval modes, /remember, /cost, auto-continue."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

from textual import events
from textual.pilot import Pilot

from rift.config.load import Overrides, load_config
from rift.frontends.tui.app import RiftApp
from rift.frontends.tui.screens.picker import PickerScreen
from rift.frontends.tui.screens.review import ReviewScreen

from .conftest import connected, drive, idle, send, transcript_text, until


def _status(app: Any) -> str:
    return str(app.status_bar.content)


def test_mode_switches_the_approval_mode_and_shows_it(tui: Any, project: Path) -> None:
    write = {"name": "write", "arguments": {"path": "plan.txt", "content": "x\n"}}
    app, _ = tui([{"tool_calls": [write]}, {"content": "I only planned"}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/mode plan")
        await until(pilot, lambda: "mode: plan" in _status(app), "plan mode in the status bar")
        assert app.driver.conversation is not None
        assert app.driver.conversation.state.mode == "plan"
        await send(pilot, "write it")
        await idle(pilot)
        assert not isinstance(app.screen, PickerScreen)  # refused, never asked
        await send(pilot, "/mode accept-edits")
        await until(pilot, lambda: "mode: accept-edits" in _status(app), "accept-edits")
        await send(pilot, "/mode sometimes")
        await until(pilot, lambda: "usage: /mode" in transcript_text(app), "the usage error")
        assert app.driver.conversation.state.mode == "accept-edits"  # unchanged
        await send(pilot, "/mode auto")
        await until(pilot, lambda: "yolo: approval off" in _status(app), "auto")
        assert app.status_bar.state.mode == "auto"
        await send(pilot, "/approve")
        await until(pilot, lambda: "approve: on" in _status(app), "/approve still works")
        assert app.driver.conversation.state.mode == "ask"
        await send(pilot, "/yolo")
        await until(
            pilot, lambda: app.driver.conversation.state.mode == "auto", "/yolo still works"
        )
        await send(pilot, "/mode")
        await until(pilot, lambda: "approval mode: auto" in transcript_text(app), "the listing")

    drive(app, scenario)
    assert not (project / "plan.txt").exists()


def test_remember_saves_a_fact_after_the_edit_review(tui: Any, project: Path) -> None:
    app, _ = tui()
    memory = project / ".rift" / "memory.md"

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/remember tests run with   make check")
        review = await until(
            pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen, "the review"
        )
        assert ".rift/memory.md" in review.path
        await pilot.press("enter")
        await until(pilot, lambda: "remembered in" in transcript_text(app), "the confirmation")
        await send(pilot, "/remember tests run with make check")
        await until(pilot, lambda: "already remembered" in transcript_text(app), "no duplicate")
        await send(pilot, "/remember")
        await until(pilot, lambda: "usage: /remember" in transcript_text(app), "the usage")
        await send(pilot, "/remember secrets live in prod")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the second review")
        await pilot.press("escape")  # rejected: nothing written
        await until(pilot, lambda: "not remembered" in transcript_text(app), "the refusal")
        await until(pilot, lambda: not app.driver.busy, "the command to end")

    drive(app, scenario)
    assert memory.read_text() == "- tests run with make check\n"


def _priced_app(project: Path, server: Any) -> RiftApp:
    """The fake server as a billed provider (`fake/…`) with a rate for the model."""
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(
        json.dumps(
            {
                "providers": {"fake": {"base_url": server.url + "/v1"}},
                "pricing": {"fake-model": {"input": 1.0, "output": 2.0}},
            }
        )
    )
    config = load_config(os.environ, project, Overrides(model="fake/fake-model"))
    return RiftApp(config)


def test_cost_sums_the_sessions_tokens_and_prices_them(project: Path, fake_server: Any) -> None:
    usage = {"prompt_tokens": 1000, "output_tokens": 500, "eval_duration_s": 0.5}
    server = fake_server({"turns": [{"content": "one", "usage": usage}] * 2})
    app = _priced_app(project, server)

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/cost")
        await until(pilot, lambda: "estimated cost: $0.0000" in transcript_text(app), "zero")
        for prompt in ("first", "second"):
            await send(pilot, prompt)
            await idle(pilot)
        await send(pilot, "/cost")
        await until(pilot, lambda: "2 turns" in transcript_text(app), "the totals")
        text = transcript_text(app)
        assert "2,000 prompt tokens billed · 1,000 output tokens" in text
        assert "estimated cost: $0.0040" in text  # (2000·1 + 1000·2) / 1e6

    drive(app, scenario)


def test_cost_of_a_local_model_is_zero(tui: Any) -> None:
    usage = {"prompt_tokens": 1000, "output_tokens": 500, "eval_duration_s": 0.5}
    app, _ = tui([{"content": "one", "usage": usage}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "hello")
        await idle(pilot)
        await send(pilot, "/cost")
        await until(pilot, lambda: "1 turn ·" in transcript_text(app), "the totals")
        assert "estimated cost: $0.0000 (local or unpriced" in transcript_text(app)

    drive(app, scenario)


WAIT_FOR_GO = "while [ ! -f go ]; do sleep 0.05; done; echo hi-from-background"


def _background_script() -> list[dict[str, Any]]:
    call = {"name": "bash", "arguments": {"command": WAIT_FOR_GO, "run_in_background": True}}
    return [{"tool_calls": [call]}, {"content": "started it"}, {"content": "the task is done"}]


def test_autocontinue_on_lets_a_finished_background_task_start_a_turn(
    tui: Any, project: Path
) -> None:
    app, server = tui(_background_script())

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/autocontinue")
        await until(pilot, lambda: "auto-continue off" in transcript_text(app), "off by default")
        await send(pilot, "/autocontinue on")
        await until(pilot, lambda: "auto-continue on" in transcript_text(app), "on")
        await send(pilot, "/yolo")
        await send(pilot, "run it in the background")
        await until(pilot, lambda: "started it" in transcript_text(app), "the first reply")
        await idle(pilot)
        (project / "go").write_text("")
        await until(pilot, lambda: "the task is done" in transcript_text(app), "the auto-turn")
        await idle(pilot)

    drive(app, scenario)
    last = [m for m in server.chat_requests()[-1]["messages"] if m["role"] == "user"][-1]
    assert "hi-from-background" in str(last["content"])


def test_autocontinue_defaults_from_the_user_config(tui: Any) -> None:
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"auto_continue": True}))
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        assert app.driver.conversation is not None and app.driver.conversation.auto_continue
        await send(pilot, "/autocontinue off")
        await until(pilot, lambda: "auto-continue off" in transcript_text(app), "off")
        assert not app.driver.conversation.auto_continue
        await send(pilot, "/autocontinue maybe")
        await until(pilot, lambda: "usage: /autocontinue" in transcript_text(app), "usage")

    drive(app, scenario)


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
VISION = {"name": "fake-model", "capabilities": ["tools", "vision"], "context_length": 32768}


def test_an_image_mention_reaches_a_vision_model(tui: Any, project: Path) -> None:
    (project / "shot.png").write_bytes(PNG)
    app, server = tui([{"content": "a screenshot"}], models=[VISION])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "what is in @shot.png?")
        await until(pilot, lambda: "attached: shot.png" in transcript_text(app), "the note")
        await idle(pilot)

    drive(app, scenario)
    user = server.chat_requests()[-1]["messages"][-1]
    assert user["images"] == [base64.b64encode(PNG).decode()]
    assert user["content"].startswith("what is in @shot.png?")
    assert "iVBOR" not in user["content"] and "<file" not in user["content"]  # no base64 text


def test_an_image_mention_to_a_model_without_vision_is_a_clear_warning(
    tui: Any, project: Path
) -> None:
    (project / "shot.png").write_bytes(PNG)
    app, server = tui([{"content": "ok"}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "what is in @shot.png?")
        await until(
            pilot,
            lambda: (
                "@shot.png: not attached: the model does not report vision" in transcript_text(app)
            ),
            "the warning",
        )
        await idle(pilot)

    drive(app, scenario)
    assert "images" not in server.chat_requests()[-1]["messages"][-1]


def test_pasting_an_image_path_makes_it_a_mention(tui: Any, project: Path) -> None:
    (project / "shots").mkdir()
    (project / "shots" / "a.png").write_bytes(PNG)
    outside = project.parent / "elsewhere.png"
    outside.write_bytes(PNG)
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        box = app.composer.input
        box.insert("see ")
        app.post_message(events.Paste(f"'{project / 'shots' / 'a.png'}'"))
        await until(pilot, lambda: box.text == "see @shots/a.png ", "the project mention")
        box.clear()
        app.post_message(events.Paste(f"file://{outside}"))
        await until(pilot, lambda: box.text == f"@{outside} ", "the absolute mention")
        box.clear()
        app.post_message(events.Paste("just some text.png and more"))
        await until(pilot, lambda: box.text == "just some text.png and more", "plain text")

    drive(app, scenario)

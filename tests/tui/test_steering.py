"""Stopping, waiting and steering: Ctrl+C, the spinner's phase, type-ahead, early keys."""

from __future__ import annotations

import json
from typing import Any

from textual.pilot import Pilot

from rift.frontends.tui.screens.picker import PickerScreen

from .conftest import connected, drive, idle, send, transcript_text, until


def _slow_reply(text: str, chunks: int = 40, delay: float = 0.05) -> dict[str, Any]:
    return {"content": [text] + [" ."] * chunks, "chunk_delay": delay}


def test_the_status_shows_the_phase_and_elapsed_seconds(tui: Any) -> None:
    app, _ = tui([{"delay_first_byte": 1.2, **_slow_reply("Writing now")}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "go")
        await until(
            pilot,
            lambda: app.status_bar.state.phase == "waiting for the first token",
            "the waiting phase",
        )
        assert app.status_bar.state.started is not None
        assert "0s" in str(app.status_bar.content)
        await until(pilot, lambda: app.status_bar.state.phase == "writing", "the writing phase")
        await until(pilot, lambda: "1s" in str(app.status_bar.content), "the elapsed seconds")
        await idle(pilot)
        assert app.status_bar.state.started is None

    drive(app, scenario)


def test_ctrl_c_cancels_the_turn_then_twice_on_an_idle_prompt_quits(tui: Any) -> None:
    app, _ = tui([{"content": "working", "never_end": " more", "chunk_delay": 0.05}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "run forever")
        await until(pilot, lambda: "working" in transcript_text(app), "streaming")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: "turn cancelled" in transcript_text(app), "the cancel")
        await idle(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause(0.1)
        assert app.is_running  # one Ctrl+C on an idle prompt only says how to quit
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running, "the exit")

    drive(app, scenario)
    assert app.return_code == 0


def test_a_prompt_sent_during_a_turn_is_queued_then_sent(tui: Any) -> None:
    app, server = tui(
        [_slow_reply("First reply", chunks=60), {"match": "follow up", "content": "Second reply"}]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "first")
        await until(pilot, lambda: "First reply" in transcript_text(app), "streaming")
        await send(pilot, "follow up")
        await until(pilot, lambda: app.queued == ["follow up"], "the queue")
        assert "queued: follow up" in str(app.composer.queue_view.content)
        assert app.composer.input.text == ""
        await until(pilot, lambda: "Second reply" in transcript_text(app), "the queued turn")
        await idle(pilot)
        assert app.queued == []
        assert not app.composer.queue_view.display
        assert "› follow up" in transcript_text(app)

    drive(app, scenario)
    assert "follow up" in json.dumps(server.chat_requests()[-1]["messages"])


def test_escape_removes_a_queued_prompt_before_it_cancels(tui: Any) -> None:
    app, server = tui([_slow_reply("First reply", chunks=80), {"content": "must not run"}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "first")
        await until(pilot, lambda: "First reply" in transcript_text(app), "streaming")
        await send(pilot, "changed my mind")
        await until(pilot, lambda: app.queued, "the queue")
        await pilot.press("escape")
        await until(pilot, lambda: not app.queued, "the queue to empty")
        assert app.driver.busy  # the turn itself goes on
        assert not app.composer.queue_view.display
        await idle(pilot)

    drive(app, scenario)
    assert len(server.chat_requests()) == 1


def test_keys_typed_before_the_model_is_bound_are_kept_and_sent(
    tui: Any, fake_server: Any, slow_proxy: Any
) -> None:
    server = fake_server({"turns": [{"content": "Early answer"}]})
    app, _ = tui(host=slow_proxy(server.url, 3.0))

    async def scenario(pilot: Pilot[Any]) -> None:
        await pilot.press(*"early bird", "enter")  # the model is still being bound
        assert app.driver.conversation is None
        await until(pilot, lambda: "Early answer" in transcript_text(app), "the reply")
        await idle(pilot)

    drive(app, scenario)
    assert "early bird" in json.dumps(server.chat_requests()[-1]["messages"])


def test_keys_typed_while_focus_is_elsewhere_go_to_the_input(tui: Any) -> None:
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        app.transcript.focus()
        await pilot.pause()
        assert app.focused is app.transcript
        await pilot.press("h", "i")
        assert app.composer.input.text == "hi"
        assert app.focused is app.composer.input

    drive(app, scenario)


def test_ctrl_c_on_an_open_approval_cancels_the_turn_and_closes_it(tui: Any) -> None:
    app, server = tui(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]},
            {"content": "must not run"},
        ]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "say hi")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen), "the approval")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: "turn cancelled" in transcript_text(app), "the cancel")
        await idle(pilot)
        await until(pilot, lambda: not isinstance(app.screen, PickerScreen), "the picker closed")

    drive(app, scenario)
    assert len(server.chat_requests()) == 1

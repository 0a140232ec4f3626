"""Background completion reaches the model: as a note on the next turn, or (opt-in) a turn.

Real `rift --serve` against the scripted fake model. The background command
waits for a file the test creates after the first turn's `done`, so it
really finishes while the conversation is idle.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from serve_driver import ServeProcess

MODEL = "fake-model"
WAIT_FOR_GO = "while [ ! -f go ]; do sleep 0.05; done; echo hi-from-background"
SUBAGENT = "You are a sub-agent working on one delegated task"


def _background_turns() -> list[dict[str, Any]]:
    call = {"name": "bash", "arguments": {"command": WAIT_FOR_GO, "run_in_background": True}}
    return [{"tool_calls": [call]}, {"content": "started it"}]


def _last_user(request: dict[str, Any]) -> str:
    return str([m for m in request["messages"] if m["role"] == "user"][-1]["content"])


def test_without_opt_in_the_note_leads_the_next_prompt(project: Path, fake_server: Any) -> None:
    server = fake_server({"turns": [*_background_turns(), {"content": "saw it"}]})
    serve = ServeProcess(project, "--host", server.url, "-m", MODEL)
    try:
        serve.until("ready")
        serve.send({"cmd": "hello", "approve": False})
        serve.send({"cmd": "prompt", "text": "run it in the background"})
        serve.until("done")
        (project / "go").write_text("")
        finished = serve.until("task_finished")
        assert finished["ok"] is True
        serve.send({"cmd": "prompt", "text": "what happened?"})
        serve.until("done")
    finally:
        serve.close()
    requests = server.chat_requests()
    assert len(requests) == 3  # no turn started on its own
    text = _last_user(requests[2])
    assert text.startswith("[task notification] background task #1 finished: ")
    assert "hi-from-background" in text
    assert text.endswith("\n\nwhat happened?")
    assert "[task notification]" not in _last_user(requests[1])  # delivered once


def test_opt_in_starts_a_turn_when_a_task_finishes_while_idle(
    project: Path, fake_server: Any
) -> None:
    server = fake_server({"turns": [*_background_turns(), {"content": "the task is done"}]})
    serve = ServeProcess(project, "--host", server.url, "-m", MODEL)
    try:
        serve.until("ready")
        serve.send({"cmd": "hello", "approve": False, "auto_continue": True})
        serve.until("capabilities")
        serve.send({"cmd": "prompt", "text": "run it in the background"})
        serve.until("done")
        (project / "go").write_text("")
        serve.until("task_finished")
        serve.until("info", text="background task finished — continuing")
        serve.until("done")
    finally:
        serve.close()
    requests = server.chat_requests()
    assert len(requests) == 3
    text = _last_user(requests[2])
    assert text.startswith("[task notification] background task #1 finished: ")
    assert "hi-from-background" in text
    assert len(serve.named("done")) == 2


def test_a_background_sub_agent_report_continues_the_conversation(
    project: Path, fake_server: Any
) -> None:
    launch = {
        "name": "agent",
        "arguments": {
            "tasks": [{"description": "survey", "prompt": "look at the code"}],
            "background": True,
        },
    }
    server = fake_server(
        {
            "turns": [
                {"match": SUBAGENT, "content": "sub report: 3 modules", "delay_first_byte": 0.3},
                {"tool_calls": [launch]},
                {"content": "launched"},
                {"content": "thanks for the report"},
            ]
        }
    )
    serve = ServeProcess(project, "--host", server.url, "-m", MODEL)
    try:
        serve.until("ready")
        serve.send({"cmd": "hello", "approve": False, "auto_continue": True})
        serve.send({"cmd": "prompt", "text": "survey in the background"})
        serve.until("task_finished")
        serve.until("info", text="background task finished — continuing")
        serve.until("done", timeout=20)
        while len(serve.named("done")) < 2:
            serve.until("done", timeout=20)
    finally:
        serve.close()
    parent = [r for r in server.chat_requests() if SUBAGENT not in str(r["messages"][0])]
    text = _last_user(parent[-1])
    assert text.startswith("[task notification] background task #1 finished: survey")
    assert "sub report: 3 modules" in text


def test_a_cancel_holds_the_automatic_turn(project: Path, fake_server: Any) -> None:
    server = fake_server({"turns": [*_background_turns(), {"content": "later"}]})
    serve = ServeProcess(project, "--host", server.url, "-m", MODEL)
    try:
        serve.until("ready")
        serve.send({"cmd": "hello", "approve": False, "auto_continue": True})
        serve.send({"cmd": "prompt", "text": "run it in the background"})
        serve.until("done")
        serve.send({"cmd": "cancel"})  # Esc while idle: not now
        (project / "go").write_text("")
        serve.until("task_finished")
        serve.send({"cmd": "prompt", "text": "and now?"})
        serve.until("done")
    finally:
        serve.close()
    requests = server.chat_requests()
    assert len(requests) == 3
    assert _last_user(requests[2]).endswith("\n\nand now?")
    assert _last_user(requests[2]).startswith("[task notification]")


def test_the_user_configs_auto_continue_is_the_hello_default(
    project: Path, fake_server: Any
) -> None:
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"auto_continue": True}))
    server = fake_server({"turns": [*_background_turns(), {"content": "the task is done"}]})
    serve = ServeProcess(project, "--host", server.url, "-m", MODEL)
    try:
        serve.until("ready")
        serve.send({"cmd": "hello", "approve": False})  # no auto_continue: the config's
        serve.until("capabilities")
        serve.send({"cmd": "prompt", "text": "run it in the background"})
        serve.until("done")
        (project / "go").write_text("")
        serve.until("info", text="background task finished — continuing")
        serve.until("done")
    finally:
        serve.close()
    assert len(server.chat_requests()) == 3

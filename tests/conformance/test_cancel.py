"""cancel mid-turn: a streaming reply and a running bash command."""

from __future__ import annotations

import json
import random
from pathlib import Path

from .serve_session import live_processes_with, tool_call, wait_for


def test_cancel_mid_stream_then_the_next_prompt_works(fake_server, serve) -> None:
    server = fake_server(
        {
            "turns": [
                {"match": "stream one", "content": "start", "never_end": "."},
                {"match": "stream two", "content": "again"},
            ]
        }
    )
    session = serve(server)
    session.prompt("stream one")
    session.expect("content", text="start")
    session.send({"cmd": "cancel"})
    events = session.read_until("done")
    assert {"event": "warning", "text": "turn cancelled", "code": ""} in events
    session.expect("context")
    session.prompt("stream two")
    events = session.read_until("done")
    assert {"event": "content", "text": "again"} in events
    assert session.names(events).count("done") == 1
    session.expect("context")
    assert session.names().count("done") == 2
    assert session.close() == 0


def test_cancel_kills_a_running_bash_command(fake_server, serve) -> None:
    marker = f"29.{random.randrange(10**6):06d}"  # a unique sleep length, visible in /proc
    server = fake_server(
        {
            "turns": [
                {"match": "sleepy", "tool_calls": [tool_call("bash", command=f"sleep {marker}")]},
                {"match": "awake", "content": "back"},
            ]
        }
    )
    session = serve(server)
    session.send({"cmd": "hello", "approve": False})
    session.expect("capabilities")
    session.prompt("sleepy")
    session.expect("tool_start")
    assert wait_for(lambda: bool(live_processes_with(marker)), 5), "sleep never started"
    session.send({"cmd": "cancel"})
    events = session.read_until("done", timeout=5)
    assert {"event": "warning", "text": "turn cancelled", "code": ""} in events
    assert wait_for(lambda: not live_processes_with(marker), 3), "sleep survived the cancel"
    session.expect("context")
    session.prompt("awake")
    assert {"event": "content", "text": "back"} in session.read_until("done")
    assert session.close() == 0


def test_stdin_eof_mid_turn_cancels_saves_and_exits(fake_server, serve) -> None:
    server = fake_server({"turns": [{"content": "start", "never_end": "."}]})
    session = serve(server)
    session.prompt("endless")
    session.expect("content", text="start")
    assert session.close(timeout=5) == 0
    saved = json.loads(Path(session.events[0]["session"]).read_text(encoding="utf-8"))
    assert any(m.get("content") == "endless" for m in saved["messages"])

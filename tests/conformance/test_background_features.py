"""Sub-agent and background-task behaviour on the wire (shapes are pinned by the goldens)."""

from __future__ import annotations

import random
from typing import Any

from .serve_session import ServeSession, live_processes_with, tool_call, wait_for


def test_subagent_events_pair_up_around_the_agent_tool(fake_server: Any, serve: Any) -> None:
    task = {"description": "look around", "prompt": "sub task zz"}
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [tool_call("agent", tasks=[task])]},
                {"match": "sub task zz", "tool_calls": [tool_call("ls", path=".")]},
                {"match": "sub task zz", "content": "child report"},
                {"content": "ok"},
            ]
        }
    )
    session: ServeSession = serve(server)
    session.send({"cmd": "hello", "approve": False})
    session.prompt("delegate please")
    events = session.read_until("done", timeout=15)
    names = session.names(events)
    start, end = names.index("subagent_started"), names.index("subagent_finished")
    assert names.index("tool_start") < start < names.index("subagent") < end
    assert end < names.index("tool_result")
    tags = {e["tag"] for e in events if e["event"].startswith("subagent")}
    assert len(tags) == 1
    result = next(e for e in events if e["event"] == "tool_result")
    assert result == {
        "event": "tool_result",
        "name": "agent",
        "ok": True,
        "preview": "child report",
        "id": "call_2_0",
        "output": "child report",
    }
    assert session.close() == 0


def test_background_task_reports_its_finish(fake_server: Any, serve: Any) -> None:
    call = tool_call("bash", command="echo background-done", run_in_background=True)
    server = fake_server({"turns": [{"tool_calls": [call]}, {"content": "ok"}]})
    session: ServeSession = serve(server)
    session.send({"cmd": "hello", "approve": False})
    session.prompt("start it")
    events = session.read_until("done", timeout=15)
    if "task_finished" not in session.names(events):  # may also land between turns
        events += session.read_until("task_finished", timeout=10)
    started = next(e for e in events if e["event"] == "task_started")
    finished = next(e for e in events if e["event"] == "task_finished")
    assert finished["id"] == started["id"] == 1
    assert finished["label"] == started["label"]
    assert finished["ok"] is True and "background-done" in finished["preview"]
    assert session.close() == 0


def test_background_tasks_die_with_rift(fake_server: Any, serve: Any) -> None:
    marker = f"28.{random.randrange(10**6):06d}"
    call = tool_call("bash", command=f"sleep {marker}", run_in_background=True)
    server = fake_server({"turns": [{"tool_calls": [call]}, {"content": "ok"}]})
    session: ServeSession = serve(server)
    session.send({"cmd": "hello", "approve": False})
    session.prompt("start it")
    session.read_until("done", timeout=15)
    assert wait_for(lambda: bool(live_processes_with(marker)), 5), "the task never started"
    assert session.close() == 0
    assert wait_for(lambda: not live_processes_with(marker), 3), "the task outlived rift"

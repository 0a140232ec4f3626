"""Sub-agent and background-task events on the wire, feature-detected.

The binary is asked to use the `agent` tool and `bash run_in_background`; a
build without the feature answers with a tool error and the test skips.
"""

from __future__ import annotations

from typing import Any

import pytest

from .serve_session import ServeSession, tool_call
from .test_golden import load_golden, shape_errors


def _check_golden(events: list[dict[str, Any]], name: str) -> None:
    shape = load_golden(name)["shape"]
    observed = [e for e in events if e["event"] == name]
    assert observed, f"no {name} event"
    for event in observed:
        assert not shape_errors(event, shape), (event, shape_errors(event, shape))


def _skip_unless_ok(events: list[dict[str, Any]], tool: str) -> None:
    result = next(e for e in events if e["event"] == "tool_result" and e["name"] == tool)
    if not result["ok"] and ("not available" in result["preview"] or "unknown tool" in result["preview"]):
        pytest.skip(f"this build has no {tool} feature: {result['preview'][:120]}")
    assert result["ok"], result


def test_subagent_events(fake_server: Any, serve: Any) -> None:
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
    _skip_unless_ok(events, "agent")
    for name in ("subagent_started", "subagent", "subagent_finished"):
        _check_golden(events, name)
    started = next(e for e in events if e["event"] == "subagent_started")
    finished = next(e for e in events if e["event"] == "subagent_finished")
    assert started["label"] == "look around" and started["tag"] == finished["tag"]
    assert finished["steps"] >= 1
    assert session.close() == 0


def test_background_task_events(fake_server: Any, serve: Any) -> None:
    call = tool_call("bash", command="echo background-done", run_in_background=True)
    server = fake_server({"turns": [{"tool_calls": [call]}, {"content": "ok"}]})
    session: ServeSession = serve(server)
    session.send({"cmd": "hello", "approve": False})
    session.prompt("start it")
    events = session.read_until("done", timeout=15)
    _skip_unless_ok(events, "bash")
    if "task_finished" not in session.names(events):
        events += session.read_until("task_finished", timeout=10)
    for name in ("task_started", "task_finished"):
        _check_golden(events, name)
    started = next(e for e in events if e["event"] == "task_started")
    finished = next(e for e in events if e["event"] == "task_finished")
    assert finished["id"] == started["id"] and finished["label"] == started["label"]
    assert finished["ok"] is True and "background-done" in finished["preview"]
    assert session.close() == 0

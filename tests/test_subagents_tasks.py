"""Sub-agents and background tasks over the serve protocol, against the fake model server."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

from serve_driver import ServeProcess, wait_gone

from rift.core.permissions.hunks import diff_segments


def _agent_call(*tasks: dict[str, Any], background: bool = False) -> dict[str, Any]:
    return {
        "tool_calls": [
            {"name": "agent", "arguments": {"tasks": list(tasks), "background": background}}
        ]
    }


def _start(project: Path, server: Any, *hello: dict[str, Any]) -> ServeProcess:
    rift = ServeProcess(project, "--host", server.url, "-m", "fake-model")
    rift.until("ready")
    for cmd in hello:
        rift.send(cmd)
    return rift


def test_two_children_run_concurrently_and_report(project: Path, fake_server: Any) -> None:
    server = fake_server(
        {
            "turns": [
                _agent_call(
                    {"description": "alpha", "prompt": "CHILD-ALPHA look at a"},
                    {"description": "beta", "prompt": "CHILD-BETA look at b"},
                ),
                {"match": "CHILD-ALPHA", "delay_first_byte": 0.6, "content": "alpha report"},
                {"match": "CHILD-BETA", "delay_first_byte": 0.6, "content": "beta report"},
                {"content": "both done"},
            ]
        }
    )
    rift = _start(project, server, {"cmd": "set_approval", "approve": False})
    rift.send({"cmd": "prompt", "text": "investigate a and b"})
    rift.until("done")
    started = rift.named("subagent_started")
    assert {e["label"] for e in started} == {"alpha", "beta"}
    assert {e["tag"] for e in started} == {"a1", "a2"}
    assert all(e["model"] == "fake-model" for e in started)
    finished = rift.named("subagent_finished")
    assert sorted(e["tag"] for e in finished) == ["a1", "a2"]
    assert all(e["steps"] == 1 for e in finished)

    chats = server.chat_requests()
    child = {
        m: r
        for r in chats
        for m in ("CHILD-ALPHA", "CHILD-BETA")
        if m in json.dumps(r) and r["messages"][-1]["content"].startswith(m)
    }
    assert set(child) == {"CHILD-ALPHA", "CHILD-BETA"}
    # Each child waited 0.6 s for its first byte; concurrent children start within that window.
    assert abs(child["CHILD-ALPHA"]["_t"] - child["CHILD-BETA"]["_t"]) < 0.5
    for request in child.values():  # children never get the agent tool
        assert "agent" not in {t["function"]["name"] for t in request.get("tools", [])}
    final = chats[-1]["messages"]
    tool_result = next(m for m in final if m["role"] == "tool")
    assert "### agent 1 — alpha\nalpha report" in tool_result["content"]
    assert "### agent 2 — beta\nbeta report" in tool_result["content"]
    assert rift.close() == 0


def test_child_edit_review_is_decided_by_the_client(project: Path, fake_server: Any) -> None:
    (project / "notes.txt").write_text("one\ntwo\nthree\n")
    server = fake_server(
        {
            "turns": [
                _agent_call({"description": "writer", "prompt": "CHILD-W rewrite notes"}),
                {
                    "match": "CHILD-W",
                    "tool_calls": [
                        {
                            "name": "write",
                            "arguments": {"path": "notes.txt", "content": "ONE\ntwo\nTHREE\n"},
                        }
                    ],
                },
                {"match": "CHILD-W", "content": "rewrote notes"},
                {"content": "ok"},
            ]
        }
    )
    rift = _start(project, server, {"cmd": "hello", "edit_review": True})
    rift.until("capabilities")
    rift.send({"cmd": "prompt", "text": "delegate the notes rewrite"})
    review = rift.until("edit_review")
    assert review["id"] == 1 and review["path"] == "notes.txt"
    assert review["segments"] == diff_segments("one\ntwo\nthree\n", "ONE\ntwo\nTHREE\n")
    # Accept only the first hunk: the child writes the reviewer's reassembled text.
    rift.send({"cmd": "edit_decision", "id": 1, "apply": True, "content": "ONE\ntwo\nthree\n"})
    rift.until("done")
    assert (project / "notes.txt").read_text() == "ONE\ntwo\nthree\n"
    activity = [e["text"] for e in rift.named("subagent")]
    assert any(t.startswith("→ write") for t in activity)
    assert "✓ write" in activity
    rift.close()


def test_background_tasks_limit_read_and_cleanup(project: Path, fake_server: Any) -> None:
    marker = f"RIFTBG{uuid.uuid4().hex[:10]}"
    calls = [
        {
            "name": "bash",
            "arguments": {
                "command": f"echo started-{i}-{marker}; sleep 60; echo {marker}",
                "run_in_background": True,
            },
        }
        for i in range(1, 10)
    ]
    server = fake_server(
        {
            "turns": [
                {"tool_calls": calls},
                {"delay_first_byte": 0.5, "tool_calls": [{"name": "task", "arguments": {"id": 2}}]},
                {"tool_calls": [{"name": "task", "arguments": {}}]},
                {"content": "launched"},
            ]
        }
    )
    rift = _start(project, server, {"cmd": "set_approval", "approve": False})
    rift.send({"cmd": "prompt", "text": "start the servers"})
    rift.until("done")
    started = rift.named("task_started")
    assert [e["id"] for e in started] == list(range(1, 9))
    results = [e for e in rift.named("tool_result") if e["name"] == "bash"]
    assert [r["ok"] for r in results] == [True] * 8 + [False]
    assert "background task limit reached (8 running)" in results[-1]["preview"]
    reads = [e for e in rift.named("tool_result") if e["name"] == "task"]
    assert f"started-2-{marker}" in reads[0]["preview"]  # read while it runs
    assert "[running]" in reads[1]["preview"]
    assert rift.named("task_finished") == []  # nothing finished on its own yet
    assert rift.close() == 0
    assert wait_gone(marker) == []  # every task died with rift


def test_finished_task_reports_between_turns(project: Path, fake_server: Any) -> None:
    server = fake_server(
        {
            "turns": [
                {
                    "tool_calls": [
                        {
                            "name": "bash",
                            "arguments": {
                                "command": "sleep 0.5; echo finished-ok",
                                "run_in_background": True,
                            },
                        }
                    ]
                },
                {"content": "started it"},
            ]
        }
    )
    rift = _start(project, server, {"cmd": "set_approval", "approve": False})
    rift.send({"cmd": "prompt", "text": "run it in the background"})
    rift.until("done")
    finished = rift.until("task_finished", timeout=10)
    assert finished == {
        "event": "task_finished",
        "id": 1,
        "label": "sleep 0.5; echo finished-ok",
        "ok": True,
        "preview": "finished-ok\n",
    }
    rift.close()


def test_cancel_cancels_foreground_children(project: Path, fake_server: Any) -> None:
    server = fake_server(
        {
            "turns": [
                _agent_call({"description": "slow", "prompt": "CHILD-SLOW wait"}),
                {
                    "match": "CHILD-SLOW",
                    "chunk_delay": 0.05,
                    "never_end": True,
                    "content": "working",
                },
                {"content": "after cancel"},
            ]
        }
    )
    rift = _start(project, server, {"cmd": "set_approval", "approve": False})
    rift.send({"cmd": "prompt", "text": "delegate something slow"})
    rift.until("subagent_started")
    deadline = time.monotonic() + 10
    while len(server.chat_requests()) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)  # the child is streaming its endless reply
    rift.send({"cmd": "cancel"})
    rift.until("done", timeout=10)
    assert rift.named("subagent_finished")  # the child ended with the parent turn
    assert any(e["text"] == "turn cancelled" for e in rift.named("warning"))
    rift.send({"cmd": "prompt", "text": "next"})
    rift.until("done")
    rift.close()

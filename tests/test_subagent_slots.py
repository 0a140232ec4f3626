"""Sub-agents on a server with few slots (issue 31): they take turns, one slot stays with
the parent conversation, and a note says so; against the fake server's scripted /props."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from serve_driver import ServeProcess

TASKS = [
    {"description": "alpha", "prompt": "CHILD-ALPHA look at a"},
    {"description": "beta", "prompt": "CHILD-BETA look at b"},
]


def _run(project: Path, fake_server: Any, slots: int) -> tuple[list[float], list[str]]:
    server = fake_server(
        {
            "wire": "openai",
            "props": {"default_generation_settings": {"n_ctx": 32768}, "total_slots": slots},
            "turns": [
                {"tool_calls": [{"name": "agent", "arguments": {"tasks": TASKS}}]},
                {"match": "CHILD-ALPHA", "delay_first_byte": 0.8, "content": "alpha report"},
                {"match": "CHILD-BETA", "delay_first_byte": 0.8, "content": "beta report"},
                {"content": "both done"},
            ],
        }
    )
    rift = ServeProcess(project, "--host", server.v1_url, "-m", "fake-model")
    rift.until("ready")
    rift.send({"cmd": "set_approval", "approve": False})
    rift.send({"cmd": "prompt", "text": "investigate a and b"})
    rift.until("done", timeout=30)
    assert rift.close() == 0
    starts = sorted(
        r["_t"]
        for r in server.chat_requests()
        if r["messages"][-1]["content"].startswith(("CHILD-ALPHA", "CHILD-BETA"))
    )
    infos = [e["text"] for e in rift.named("info")]
    assert "both done" in json.dumps(rift.events)
    return starts, infos


def test_two_slots_run_one_child_at_a_time(project: Path, fake_server: Any) -> None:
    starts, infos = _run(project, fake_server, slots=2)
    assert len(starts) == 2 and starts[1] - starts[0] >= 0.75  # the second waited
    assert any("2 sub-agents take turns, 1 at a time" in i for i in infos), infos


def test_enough_slots_run_children_together(project: Path, fake_server: Any) -> None:
    starts, infos = _run(project, fake_server, slots=4)
    assert len(starts) == 2 and starts[1] - starts[0] < 0.5
    assert not any("take turns" in i for i in infos)


def _slots_sent(project: Path, fake_server: Any, props: dict[str, Any] | None) -> dict[str, Any]:
    """The `id_slot` of each chat request (None: not sent), by who sent it."""
    script: dict[str, Any] = {
        "wire": "openai",
        "turns": [
            {"tool_calls": [{"name": "agent", "arguments": {"tasks": TASKS}}]},
            {"match": "CHILD-ALPHA", "delay_first_byte": 0.3, "content": "alpha report"},
            {"match": "CHILD-BETA", "delay_first_byte": 0.3, "content": "beta report"},
            {"content": "both done"},
        ],
    }
    if props is not None:
        script["props"] = props
    server = fake_server(script)
    rift = ServeProcess(project, "--host", server.v1_url, "-m", "fake-model")
    rift.until("ready")
    rift.send({"cmd": "set_approval", "approve": False})
    rift.send({"cmd": "prompt", "text": "investigate a and b"})
    rift.until("done", timeout=30)
    assert rift.close() == 0
    sent: dict[str, Any] = {"parent": [], "children": []}
    for request in server.chat_requests():
        child = request["messages"][-1]["content"].startswith(("CHILD-ALPHA", "CHILD-BETA"))
        sent["children" if child else "parent"].append(request.get("id_slot"))
    return sent


def test_the_conversation_pins_slot_0_and_children_the_others(
    project: Path, fake_server: Any
) -> None:
    props = {"default_generation_settings": {"n_ctx": 32768}, "total_slots": 3}
    sent = _slots_sent(project, fake_server, props)
    assert sent["parent"] == [0, 0]  # before and after the children: never evicted
    assert sorted(sent["children"]) == [1, 2]


def test_a_single_slot_server_pins_only_the_conversation(project: Path, fake_server: Any) -> None:
    props = {"default_generation_settings": {"n_ctx": 32768}, "total_slots": 1}
    sent = _slots_sent(project, fake_server, props)
    assert sent["parent"] == [0, 0]
    assert sent["children"] == [None, None]  # no slot of their own to name


def test_a_server_without_slots_is_sent_no_id_slot(project: Path, fake_server: Any) -> None:
    sent = _slots_sent(project, fake_server, None)
    assert sent == {"parent": [None, None], "children": [None, None]}

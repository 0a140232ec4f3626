"""Tool-call arguments on the wire: `tool_start.args` is the arguments object."""

from __future__ import annotations


def test_args_object_and_invalid_json_arguments(fake_server, serve) -> None:
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [{"name": "ls", "arguments": {"path": "."}}]},
                {"tool_calls": [{"name": "read", "arguments": "{not json"}]},
                {"content": "ok"},
            ]
        }
    )
    session = serve(server)
    session.prompt("look around")
    events = session.read_until("done")
    starts = [e for e in events if e["event"] == "tool_start"]
    results = [e for e in events if e["event"] == "tool_result"]
    assert starts[0] == {
        "event": "tool_start",
        "name": "ls",
        "args": {"path": "."},
        "id": "call_2_0",
    }
    assert starts[1] == {
        "event": "tool_start",
        "name": "read",
        "args": {"raw": "{not json"},
        "id": "call_4_0",
    }
    assert results[0]["ok"] is True
    assert results[1]["name"] == "read" and results[1]["ok"] is False
    assert session.close() == 0

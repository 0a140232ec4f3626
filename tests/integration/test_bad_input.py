"""Bad input never crashes a turn (issue "Agent core", Bad input).

Broken tool arguments, unknown tools, a vanished file, a binary file and a
command that never ends each come back to the model as a readable tool
error; a server that fails mid-turn ends the turn with a `warning` plus
`done`. Whatever happens, the session file stays valid JSON with every tool
call answered (`load_session` in conftest checks that).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest


def _one_call(harness: Any, call: dict[str, Any], openai: bool = False) -> tuple[Any, str]:
    """Run a turn whose model makes `call` then answers; returns (run, tool result text)."""
    server = harness.server([{"tool_calls": [{"id": "c1", **call}]}, {"content": "recovered"}])
    run = harness.run("do it", server, openai=openai)
    assert run.code == 0, run.describe()
    assert run.result["reply"] == "recovered"
    result = run.tool_results()["c1"]
    # The model got the error in its next request, verbatim.
    assert server.chat_requests()[1]["messages"][-1]["content"] == result
    return run, result


@pytest.mark.parametrize("openai", [False, True], ids=["ollama", "openai"])
def test_broken_tool_arguments(harness: Any, openai: bool) -> None:
    broken = '{"path": "a.txt", "content": "unterminated'
    run, text = _one_call(harness, {"name": "write", "arguments": broken}, openai)
    assert text.startswith("ERROR: the arguments for write are not valid JSON")
    # Summarized, never echoed: a model copies what it reads back (issue 22).
    assert "unterminated" not in text and "cut off before the JSON closed" in text
    assert "keys seen: path, content" in text and "Send one short, complete JSON object" in text
    assert run.result["tools"] == [{"name": "write", "ok": False}]
    assert not (harness.project / "a.txt").exists()


def test_missing_required_argument(harness: Any) -> None:
    _, text = _one_call(harness, {"name": "read", "arguments": {"file": "a.txt"}})
    assert text == "ERROR: missing required string parameter 'path'"


def test_unknown_tool(harness: Any) -> None:
    run, text = _one_call(harness, {"name": "frobnicate", "arguments": {"x": 1}})
    assert text.startswith("ERROR: unknown tool 'frobnicate'. Available tools: read, write,")
    assert run.result["tools"] == [{"name": "frobnicate", "ok": False}]


def test_file_that_vanished(harness: Any) -> None:
    (harness.project / "data.txt").write_text("here\n")
    server = harness.server(
        [
            {"tool_calls": [{"name": "bash", "arguments": {"command": "rm data.txt"}}]},
            {"tool_calls": [{"id": "c1", "name": "read", "arguments": {"path": "data.txt"}}]},
            {
                "tool_calls": [
                    {
                        "id": "c2",
                        "name": "edit",
                        "arguments": {"path": "data.txt", "old_string": "a", "new_string": "b"},
                    }
                ]
            },
            {"content": "it is gone"},
        ]
    )
    run = harness.run("use data.txt", server)
    assert run.code == 0, run.describe()
    assert [t["ok"] for t in run.result["tools"]] == [True, False, False]
    results = run.tool_results()
    for key in ("c1", "c2"):
        assert results[key].startswith("ERROR: data.txt: no such file or directory"), results
    assert not (harness.project / "data.txt").exists()


def test_binary_file(harness: Any) -> None:
    (harness.project / "blob.bin").write_bytes(b"\x7fELF\x00\x01\x02binary\xff\xfe")
    _, text = _one_call(harness, {"name": "read", "arguments": {"path": "blob.bin"}})
    assert text == "ERROR: blob.bin is a binary file; read shows text files only"


def test_binary_file_for_edit(harness: Any) -> None:
    data = b"\x00\x01head\x00tail"
    (harness.project / "blob.bin").write_bytes(data)
    call = {
        "name": "edit",
        "arguments": {"path": "blob.bin", "old_string": "head", "new_string": "x"},
    }
    _, text = _one_call(harness, call)
    assert text.startswith("ERROR: ")
    assert "binary" in text
    assert (harness.project / "blob.bin").read_bytes() == data


def test_command_that_never_ends(harness: Any, marker: Any) -> None:
    command = marker.command()
    call = {"name": "bash", "arguments": {"command": command, "timeout_secs": 1}}
    run, text = _one_call(harness, call)
    assert text.startswith("ERROR: (no output)\n[timed out after 1s")
    assert "the command and its children were killed" in text
    assert run.result["stats"]["duration_ms"] < 10_000
    assert marker.wait_gone(2), f"still running: {marker.pids()}"


def test_command_whose_child_keeps_the_pipe_open(harness: Any, marker: Any) -> None:
    """A backgrounded grandchild holding stdout must not hang the turn past the timeout."""
    command = f"({marker.command()}) & echo started"
    call = {"name": "bash", "arguments": {"command": command, "timeout_secs": 1}}
    _, text = _one_call(harness, call)
    assert "started" in text
    assert "timed out after 1s" in text
    assert marker.wait_gone(2), f"still running: {marker.pids()}"


# ------------------------------------------------------------ model server faults

SERVER_FAULTS = {
    "drop-mid-answer": ({"content": ["partial ", "answer ", "more"], "drop_after": 1}, "closed"),
    "drop-before-anything": ({"drop_after": 0}, "closed the stream"),
    "garbage-line": ({"content": "hi", "garbage": "this is not json"}, "malformed line"),
    "http-500": ({"status": 500, "error": "CUDA out of memory"}, "CUDA out of memory"),
}


@pytest.mark.parametrize("fault", list(SERVER_FAULTS))
def test_server_failing_mid_turn_headless(harness: Any, fault: str) -> None:
    turn, says = SERVER_FAULTS[fault]
    (harness.project / "a.txt").write_text("a\n")
    first = {"tool_calls": [{"id": "c1", "name": "read", "arguments": {"path": "a.txt"}}]}
    server = harness.server([first, turn])
    run = harness.run("read a.txt", server)
    assert run.code == 1, run.describe()
    warnings = [line for line in run.stderr.splitlines() if line.startswith("warning: error:")]
    assert len(warnings) == 1, run.stderr
    assert says in warnings[0]
    assert "Traceback" not in run.stderr
    assert run.result["tools"] == [{"name": "read", "ok": True}]
    messages = run.session()["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]


@pytest.mark.parametrize("fault", ["drop-mid-answer", "http-500"])
def test_server_failing_mid_turn_serve(harness: Any, serve: Any, fault: str) -> None:
    turn, says = SERVER_FAULTS[fault]
    server = harness.server([turn, {"content": "back again"}])
    client = serve(server)
    client.send({"cmd": "prompt", "text": "hi"})
    warning = client.expect("warning")
    assert warning["text"].startswith("error: ") and says in warning["text"]
    done = client.expect("done")
    assert done["stats"]["iterations"] == 0
    client.expect("context")
    # The loop keeps serving: the next prompt works.
    client.send({"cmd": "prompt", "text": "again"})
    client.expect("content", text="back again")
    client.expect("done")
    client.close_stdin()
    assert client.proc.wait(timeout=10) == 0
    messages = client.session()["messages"]
    assert [m["content"] for m in messages if m["role"] == "user"] == ["hi", "again"]


def test_a_failing_mcp_server_leaves_no_traceback_on_screen(harness: Any) -> None:
    """Internal failures are logged to a file, never dumped on the user's terminal; the user
    sees the one-line notice (and the model still answers)."""
    harness.write_config({"mcp": {"broken": {"command": "/nonexistent/mcp-server"}}})
    server = harness.server([{"content": "fine"}])
    run = harness.run("hello", server)
    assert run.code == 0, run.describe()
    assert "Traceback" not in run.stderr, run.stderr
    assert "mcp 'broken' failed to start" in run.stderr
    logs = Path(os.environ["XDG_STATE_HOME"]) / "rift" / "rift.log"
    assert "Traceback" in logs.read_text(encoding="utf-8")  # kept where a bug report can use it

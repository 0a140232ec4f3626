"""`rift -p` end to end: files on disk, the JSON output, the session file, resume,
startup failures, and undo (through `rift --serve`, the front end that has it)."""

from __future__ import annotations

import socket
from typing import Any

WRITE_AND_EDIT = [
    {
        "tool_calls": [
            {"name": "write", "arguments": {"path": "src/new.py", "content": "x = 1\n"}},
            {
                "name": "edit",
                "arguments": {"path": "old.txt", "old_string": "before", "new_string": "after"},
            },
        ]
    },
    {"content": "Created src/new.py and updated old.txt."},
]


def test_json_output_files_and_session(harness: Any) -> None:
    (harness.project / "old.txt").write_text("line before\n")
    server = harness.server(WRITE_AND_EDIT)
    run = harness.run("create src/new.py and fix old.txt", server)
    assert run.code == 0, run.describe()

    assert (harness.project / "src/new.py").read_text() == "x = 1\n"
    assert (harness.project / "old.txt").read_text() == "line after\n"

    result = run.result
    assert set(result) == {
        "model",
        "reply",
        "tools",
        "stats",
        "estimated_cost_usd",
        "session",
        "outcome",
        "checks",
        "reason",
    }
    assert result["estimated_cost_usd"] == 0  # a model on the default host costs nothing
    assert (result["outcome"], result["reason"]) == ("answered", "")
    assert result["model"] == "fake-model"
    assert result["reply"] == "Created src/new.py and updated old.txt."
    assert result["tools"] == [{"name": "write", "ok": True}, {"name": "edit", "ok": True}]
    stats = result["stats"]
    assert stats["iterations"] == 2
    assert stats["billed_prompt_tokens"] >= stats["prompt_tokens"] > 0
    assert isinstance(stats["duration_ms"], int)
    assert isinstance(stats["tokens_per_sec"], float)
    # Tool activity goes to stderr, never into the JSON document.
    assert "→ write src/new.py" in run.stderr
    assert "src/new.py +1 -0" in run.stderr

    session = run.session()
    assert session["model"] == "fake-model"
    assert session["cwd"] == str(harness.project)
    roles = [m["role"] for m in session["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "tool", "assistant"]
    user = session["messages"][1]
    assert user["content"] == "create src/new.py and fix old.txt"
    calls = session["messages"][2]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["write", "edit"]
    assert all(c["id"] for c in calls)
    results = session["messages"][3:5]
    assert [r["tool_call_id"] for r in results] == [c["id"] for c in calls]
    assert [r["tool_name"] for r in results] == ["write", "edit"]
    assert results[0]["content"] == "Wrote 6 bytes to src/new.py"
    assert session["messages"][-1]["content"] == "Created src/new.py and updated old.txt."


def test_text_output_streams_reply_on_stdout(harness: Any) -> None:
    server = harness.server([{"content": ["Hello", ", world"]}])
    run = harness.run("say hello", server, json_output=False)
    assert run.code == 0, run.describe()
    assert run.stdout == "Hello, world\n"


def test_continue_resumes_the_newest_session(harness: Any) -> None:
    server = harness.server(
        [{"content": "first answer"}, {"content": "second answer"}, {"content": "third"}]
    )
    first = harness.run("remember the word PELICAN", server)
    assert first.code == 0, first.describe()
    second = harness.run("what was the word?", server, "--continue")
    assert second.code == 0, second.describe()

    assert second.result["session"] == first.result["session"]
    request = server.chat_requests()[1]
    contents = [m["content"] for m in request["messages"]]
    assert contents[1:] == ["remember the word PELICAN", "first answer", "what was the word?"]
    session = second.session()
    assert [m["content"] for m in session["messages"][1:]] == [*contents[1:], "second answer"]

    # --resume with an explicit path continues the same file too.
    third = harness.run("and again?", server, "--resume", first.result["session"])
    assert third.code == 0, third.describe()
    assert len(third.session()["messages"]) == 7


def test_corrupt_session_is_set_aside_and_the_run_proceeds(harness: Any, tmp_path: Any) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"model": "x", "messages": [')
    server = harness.server([{"content": "fresh start"}])
    run = harness.run("hello", server, "--resume", str(broken))
    assert run.code == 0, run.describe()
    assert "unreadable" in run.stderr
    backup = tmp_path / "broken.json.corrupt"
    assert backup.read_text() == '{"model": "x", "messages": ['
    # The run saved a fresh, valid session at the path it was asked to resume.
    assert run.result["session"] == str(broken)
    session = run.session()
    assert [m["content"] for m in session["messages"][1:]] == ["hello", "fresh start"]
    assert "Traceback" not in run.stderr


def test_unreachable_host_is_one_line_naming_the_host(harness: Any) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    host = f"http://127.0.0.1:{port}"  # bound but not listening: connection refused
    proc = harness.cli(["-p", "x", "--host", host, "-m", "fake-model"])
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert host in lines[0]
    assert "--host" in lines[0] and "RIFT_HOST" in lines[0]
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_unknown_model_lists_the_models_on_that_host(harness: Any) -> None:
    server = harness.server(
        models=[
            {"name": "fake-model", "capabilities": ["tools"]},
            {"name": "other-model", "capabilities": ["tools"]},
        ]
    )
    proc = harness.cli(["-p", "x", "--host", server.url, "-m", "no-such-model"])
    assert proc.returncode == 2
    assert "no-such-model" in proc.stderr
    assert "not found" in proc.stderr
    assert "fake-model, other-model" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert server.chat_requests() == []


def test_model_without_tools_capability_is_refused(harness: Any) -> None:
    server = harness.server(models=[{"name": "chatty", "capabilities": []}])
    proc = harness.cli(["-p", "x", "--host", server.url, "-m", "chatty"])
    assert proc.returncode == 2
    assert "'chatty'" in proc.stderr and "tools" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert server.chat_requests() == []


def test_openai_compatible_host_works_end_to_end(harness: Any) -> None:
    server = harness.server(
        [
            {"tool_calls": [{"name": "write", "arguments": {"path": "a.txt", "content": "A"}}]},
            {"content": "ok"},
        ]
    )
    run = harness.run("write a.txt", server, openai=True)
    assert run.code == 0, run.describe()
    assert (harness.project / "a.txt").read_text() == "A"
    second = server.chat_requests()[1]
    assert second["_path"].endswith("/v1/chat/completions")
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["tool_call_id"] == "call_fake_1"


def test_undo_restores_files_through_serve(harness: Any, serve: Any) -> None:
    (harness.project / "old.txt").write_text("line before\n")
    server = harness.server(WRITE_AND_EDIT)
    client = serve(server)
    client.send({"cmd": "hello", "approve": False})
    client.expect("capabilities", approve=False)
    client.send({"cmd": "prompt", "text": "create src/new.py and fix old.txt"})
    client.expect("edit_diff", path="src/new.py")
    client.expect("edit_diff", path="old.txt")
    client.expect("done")
    assert (harness.project / "src/new.py").exists()
    assert (harness.project / "old.txt").read_text() == "line after\n"

    client.send({"cmd": "undo"})
    info = client.expect("info")
    assert info["text"].startswith("restored to pre-turn state:")
    assert "  src/new.py" in info["text"] and "  old.txt" in info["text"]
    assert "changes made via bash are not tracked" in info["text"]
    assert not (harness.project / "src/new.py").exists()
    assert (harness.project / "old.txt").read_text() == "line before\n"

    client.send({"cmd": "undo"})
    warning = client.expect("warning")
    assert warning["text"].startswith("nothing to undo")
    client.close_stdin()
    assert client.proc.wait(timeout=10) == 0
    # Undo reverts files only: the conversation stays as it was.
    assert any(m.get("tool_calls") for m in client.session()["messages"])

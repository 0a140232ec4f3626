"""The conversation owner's guarantees over the wire (issue 15).

Each test reproduces a bug seen on the first wave's `main` (two turns at once,
a model switch under a turn, a review left open at EOF, the apply-nudge after
a refusal or on a question) or pins a rule for commands written together in
one pipe write, which is how editors batch them.
"""

from __future__ import annotations

import json
from typing import Any

from rift.core.loop.hardening import APPLY_NUDGE

from .serve_session import ServeSession, edit_call, tool_call

BUSY = "turn in progress — cancel it or wait for done"


def _lines(*commands: dict[str, Any]) -> bytes:
    """Several commands as one write."""
    return b"".join(json.dumps(c).encode() + b"\n" for c in commands)


def _prompt(text: str) -> dict[str, Any]:
    return {"cmd": "prompt", "text": text}


def _slow(match: str, text: str, delay: float = 0.3) -> dict[str, Any]:
    return {"match": match, "content": [text, " (end)"], "chunk_delay": delay}


def _nudged(server: Any) -> bool:
    return any(APPLY_NUDGE in json.dumps(r["messages"]) for r in server.chat_requests())


# ------------------------------------------------------- one turn at a time


def test_two_prompts_in_one_write_start_one_turn(fake_server, serve) -> None:
    server = fake_server(
        {"turns": [_slow("answer one", "answer one"), {"match": "answer two", "content": "two"}]}
    )
    session: ServeSession = serve(server)
    session.send(_lines(_prompt("answer one"), _prompt("answer two")))
    events = session.read_until("done")
    names = session.names(events)
    assert names.count("iteration") == 1, names
    assert {"event": "warning", "text": BUSY, "code": "busy"} in events
    assert "two" not in "".join(e["text"] for e in events if e["event"] == "content")
    assert len(server.chat_requests()) == 1
    assert session.close() == 0


def test_cancel_reaches_the_only_running_turn(fake_server, serve) -> None:
    server = fake_server({"turns": [_slow("first", "first", delay=2.0)]})
    session: ServeSession = serve(server)
    session.send(_lines(_prompt("first"), _prompt("second")))
    session.expect("content", text="first")
    session.send({"cmd": "cancel"})
    events = session.read_until("done")
    assert events[-1]["outcome"] == "cancelled"
    assert "done" not in session.names(session.drain(0.5))  # no second turn was running
    assert len(server.chat_requests()) == 1
    assert session.close() == 0


def test_set_model_then_prompt_in_one_write_refuses_the_prompt(fake_server, serve) -> None:
    server = fake_server(
        {
            "models": [
                {"name": "fake-model", "capabilities": ["tools"], "context_length": 32768},
                {"name": "other-model", "capabilities": ["tools"], "context_length": 16384},
            ],
            "turns": [{"match": "after switch", "content": "fine"}],
        }
    )
    session: ServeSession = serve(server)
    session.send(_lines({"cmd": "set_model", "model": "other-model"}, _prompt("during switch")))
    events = session.read_until("model_changed")
    assert {"event": "warning", "text": BUSY, "code": "busy"} in events
    assert "iteration" not in session.names(events)
    session.expect("context")
    session.prompt("after switch")
    done = session.expect("done")
    assert done["outcome"] == "answered"
    assert server.chat_requests()[-1]["model"] == "other-model"
    assert session.close() == 0


def test_prompt_then_set_model_and_undo_in_one_write_are_refused(fake_server, serve) -> None:
    server = fake_server({"turns": [_slow("work", "working")]})
    session: ServeSession = serve(server)
    session.send(
        _lines(
            _prompt("work"),
            {"cmd": "undo"},
            {"cmd": "set_model", "model": "other-model"},
            _prompt("again"),
        )
    )
    events = session.read_until("done")
    busy = [e["text"] for e in events if e["event"] == "warning" and e["code"] == "busy"]
    assert busy == [
        "turn in progress — cancel it or wait before undoing",
        "turn in progress — cancel it or wait before switching models",
        BUSY,
    ]
    assert "model_changed" not in session.names(events)
    assert events[-1]["outcome"] == "answered"
    assert session.close() == 0


def test_prompt_then_cancel_in_one_write_ends_with_one_done(fake_server, serve) -> None:
    server = fake_server({"turns": [_slow("never", "never")]})
    session: ServeSession = serve(server)
    session.send(_lines(_prompt("never"), {"cmd": "cancel"}))
    events = session.read_until("done")
    assert events[-1]["outcome"] == "cancelled"
    assert session.names(events).count("done") == 1
    session.prompt("next")
    assert session.expect("done")["outcome"] == "answered"
    assert session.close() == 0


def test_cancel_then_prompt_in_one_write_runs_the_prompt(fake_server, serve) -> None:
    server = fake_server({"turns": [{"match": "hello", "content": "hi"}]})
    session: ServeSession = serve(server)
    session.send(_lines({"cmd": "cancel"}, _prompt("hello")))
    events = session.read_until("done")
    assert [e["text"] for e in events if e["event"] == "content"] == ["hi"]
    assert events[-1]["outcome"] == "answered"
    assert session.close() == 0


def test_many_commands_in_one_write_keep_every_rule(fake_server, serve) -> None:
    server = fake_server({"turns": [_slow("one", "one")]})
    session: ServeSession = serve(server)
    session.send(
        _lines(
            {"cmd": "hello", "edit_review": True},
            _prompt("one"),
            _prompt("two"),
            {"cmd": "undo"},
            {"cmd": "compact"},
            {"cmd": "rewind"},
            {"cmd": "new_session"},
            {"cmd": "set_approval", "approve": False},
            {"cmd": "list_sessions"},
            _prompt("three"),
        )
    )
    events = session.read_until("done")
    names = session.names(events)
    assert names.count("iteration") == 1 and names.count("done") == 1
    busy = [e for e in events if e["event"] == "warning" and e["code"] == "busy"]
    assert len(busy) == 6  # two, undo, compact, rewind, new_session, three
    assert "session_changed" not in names
    assert "approval_changed" in names and "sessions" in names
    assert session.close() == 0


# ------------------------------------------------------------- EOF and reviews


def test_stdin_eof_closes_a_pending_review_before_done(fake_server, serve, project) -> None:
    (project / "f.txt").write_text("a\n", encoding="utf-8")
    server = fake_server({"turns": [{"tool_calls": [edit_call("f.txt", "a", "b")]}]})
    session: ServeSession = serve(server)
    session.send({"cmd": "hello", "edit_review": True})
    session.prompt("edit it")
    review = session.expect("edit_review")
    assert session.close() == 0
    names = session.names()
    closed = names.index("edit_review_closed")
    assert session.events[closed]["id"] == review["id"]
    assert closed < names.index("done", closed)
    assert (project / "f.txt").read_text(encoding="utf-8") == "a\n"


# ----------------------------------------------------------------- the nudge


def test_no_apply_nudge_after_the_user_rejected_the_write(fake_server, serve, project) -> None:
    (project / "f.txt").write_text("a\n", encoding="utf-8")
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [edit_call("f.txt", "a", "b")]},
                {"content": "Understood. You could apply it yourself:\n```\nb\n```"},
                {"content": "(a nudged follow-up)"},
            ]
        }
    )
    session: ServeSession = serve(server)
    session.send({"cmd": "hello", "edit_review": True})
    session.prompt("fix f.txt")
    review = session.expect("edit_review")
    session.send({"cmd": "edit_decision", "id": review["id"], "apply": False})
    events = session.read_until("done")
    assert len(server.chat_requests()) == 2 and not _nudged(server)
    assert "(a nudged follow-up)" not in json.dumps(events)
    assert session.close() == 0


def test_no_apply_nudge_after_a_dismissed_ask(fake_server, serve, project) -> None:
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [tool_call("write", path="new.txt", content="x\n")]},
                {"content": "Here is the file instead:\n```\nx\n```"},
                {"content": "(a nudged follow-up)"},
            ]
        }
    )
    session: ServeSession = serve(server)
    session.prompt("create new.txt")
    ask = session.expect("ask")
    session.send({"cmd": "answer", "id": ask["id"], "text": "something unexpected"})
    session.read_until("done")
    assert len(server.chat_requests()) == 2 and not _nudged(server)
    assert not (project / "new.txt").exists()
    assert session.close() == 0


def test_a_reply_showing_code_gets_one_nudge_that_leaves_the_choice(fake_server, serve) -> None:
    """No English words tell a question from a request any more (issue 41): a reply that
    shows code in a turn that changed nothing gets one nudge, which lets the model answer."""
    server = fake_server(
        {
            "turns": [
                {"content": "It adds two numbers:\n```python\ndef add(a, b): ...\n```"},
                {"content": "(a nudged follow-up)"},
            ]
        }
    )
    session: ServeSession = serve(server)
    session.prompt("What does add(a, b) do in calc.py")
    session.read_until("done")
    assert len(server.chat_requests()) == 2 and _nudged(server)
    assert "otherwise give your final answer" in json.dumps(server.chat_requests()[1])
    assert session.close() == 0


def test_an_attached_file_does_not_make_a_request(fake_server, serve, project) -> None:
    (project / "todo.md").write_text("- fix the parser\n- add tests\n", encoding="utf-8")
    server = fake_server(
        {"turns": [{"content": "Two items: the parser and tests."}, {"content": "(nudged)"}]}
    )
    session: ServeSession = serve(server)
    session.prompt("summarize @todo.md")
    events = session.read_until("done")
    assert {"event": "info", "text": "attached: todo.md"} in events
    body = json.dumps(server.chat_requests()[0]["messages"])
    assert "fix the parser" in body  # the mention was attached by the core
    assert len(server.chat_requests()) == 1 and not _nudged(server)
    assert session.close() == 0


def test_a_nudged_follow_up_is_announced_as_a_new_message(fake_server, serve) -> None:
    server = fake_server(
        {
            "turns": [
                {"content": "Change it like this:\n```\nreturn a + b\n```"},
                {"content": "Done."},
            ]
        }
    )
    session: ServeSession = serve(server)
    session.prompt("fix add in calc.py")
    events = session.read_until("done")
    names = session.names(events)
    first, second = (i for i, n in enumerate(names) if n == "content")
    assert "info" in names[first:second], names
    assert _nudged(server)
    assert session.close() == 0


# ------------------------------------------------------------------ modes


def test_set_mode_plan_refuses_writes_and_accept_edits_applies_them(
    fake_server, serve, project
) -> None:
    server = fake_server(
        {
            "turns": [
                {"match": "plan it", "tool_calls": [tool_call("write", path="a.txt", content="x")]},
                {"match": "plan it", "content": "planned"},
                {
                    "match": "do it",
                    "tool_calls": [
                        tool_call("write", path="a.txt", content="x"),
                        tool_call("bash", command="echo hi"),
                    ],
                },
                {"match": "do it", "content": "done"},
            ]
        }
    )
    session: ServeSession = serve(server)
    session.send({"cmd": "set_mode", "mode": "plan"})
    assert session.expect("approval_changed") == {
        "event": "approval_changed",
        "approve": True,
        "mode": "plan",
    }
    session.prompt("plan it")
    session.read_until("done")
    assert not (project / "a.txt").exists()
    session.send({"cmd": "set_mode", "mode": "accept-edits"})
    session.expect("approval_changed", mode="accept-edits")
    session.prompt("do it")
    ask = session.expect("ask")  # the write applied without asking; bash still asks
    assert (project / "a.txt").read_text(encoding="utf-8") == "x"
    assert "echo hi" in ask["question"]
    session.send({"cmd": "answer", "id": ask["id"], "text": "deny"})
    session.read_until("done")
    session.send({"cmd": "set_mode", "mode": "yolo"})
    warning = session.expect("warning")
    assert warning["code"] == "bad_command" and "accept-edits" in warning["text"]
    assert session.close() == 0

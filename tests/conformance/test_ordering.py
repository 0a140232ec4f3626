"""Ordering rules and turn semantics (spec "Semantics worth building against")."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .serve_session import ServeSession, edit_call, tool_call

BUSY = "turn in progress — cancel it or wait for done"
TURN_EVENTS = {"iteration", "thinking", "content", "tool_start", "tool_result", "edit_diff", "plan"}
EDIT_CHOICES = [
    "allow",
    "always allow edit this session",
    "always allow 'Edit(f.txt)' in this project",
    "always allow 'Edit(f.txt)' everywhere",
    "deny",
]


def _sessions_dir() -> Path:
    path = Path(os.environ["XDG_DATA_HOME"]) / "rift" / "sessions"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _turn(session: ServeSession, text: str) -> list[dict[str, Any]]:
    """Prompt and read through the turn's `context` (which follows its `done`)."""
    session.prompt(text)
    events = session.read_until("done")
    return events + session.read_until("context")


# ---------------------------------------------------------------- startup


def test_fresh_startup_is_ready_then_context_and_nothing_else(fake_server, serve) -> None:
    session = serve(fake_server({}), startup=False)
    assert session.names(session.read_until("context")) == ["ready", "context"]
    ready, context = session.events
    assert context["limit"] == ready["num_ctx"]
    assert session.barrier() == []
    assert session.close() == 0


SAVED = [
    {"role": "system", "content": "old system prompt"},
    {"role": "user", "content": "first question"},
    {
        "role": "assistant",
        "content": "let me look",
        "tool_calls": [{"id": "c1", "function": {"name": "ls", "arguments": {}}}],
    },
    {"role": "tool", "content": "f.txt", "tool_name": "ls", "tool_call_id": "c1"},
    {"role": "user", "content": "[system] a note rift wrote"},
    {"role": "assistant", "content": "first answer"},
    {"role": "user", "content": "second question"},
    {"role": "assistant", "content": ""},
]
EXPECTED_HISTORY = [
    {"role": "user", "text": "first question"},
    {"role": "assistant", "text": "first answer"},
    {"role": "user", "text": "second question"},
]


def test_resume_and_continue_send_filtered_history_third(fake_server, serve) -> None:
    path = _sessions_dir() / "1700000000.json"
    body = {"model": "fake-model", "saved_at": 1700000000, "cwd": "/x", "messages": SAVED}
    path.write_text(json.dumps(body), encoding="utf-8")
    server = fake_server({})
    for flags in (("--resume", str(path)), ("--continue",)):
        session = serve(server, *flags, startup=False)
        events = session.read_until("history")
        assert session.names(events) == ["ready", "context", "history"], flags
        assert events[0]["session"] == str(path)
        assert events[2]["messages"] == EXPECTED_HISTORY
        assert session.close() == 0


def test_resuming_a_session_without_messages_sends_no_history(fake_server, serve, tmp_path):
    session = serve(fake_server({}), "--resume", str(tmp_path / "absent.json"), startup=False)
    session.read_until("context")
    assert "history" not in session.names(session.barrier())
    assert session.close() == 0


# ------------------------------------------------------------------- turns


def test_every_turn_ends_with_one_done_then_context(fake_server, serve) -> None:
    server = fake_server(
        {
            "turns": [
                {"match": "turn one", "content": "one"},
                {"match": "turn two", "status": 400, "error": "scripted failure"},
                {"match": "turn three", "content": "three"},
            ]
        }
    )
    session = serve(server)
    for text in ("turn one", "turn two", "turn three"):
        events = _turn(session, text)
        names = session.names(events)
        assert names.count("done") == 1, names
        assert names[-1] == "context", names
        assert not TURN_EVENTS & set(names[names.index("done") :]), names
    errored = _errored_turn(session.events)
    assert errored[0]["event"] == "warning" and errored[0]["text"].startswith("error: ")
    assert errored[1] == {
        "event": "done",
        "stats": {
            "iterations": 0,
            "prompt_tokens": 0,
            "billed_prompt_tokens": 0,
            "output_tokens": 0,
            "duration_ms": 0,
            "tokens_per_sec": 0.0,
            "requests": 0,
            "prefill_tokens": 0,
            "prefill_ms": 0,
            "decode_tokens": 0,
            "decode_ms": 0,
            "cached_tokens": 0,
            "tool_ms": 0,
        },
        "outcome": "error",
        "reason": "400: scripted failure",
        "cost_usd": 0.0,
        "checks": None,
    }
    assert session.close() == 0


def _errored_turn(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    dones = [i for i, e in enumerate(events) if e["event"] == "done"]
    return events[dones[1] - 1 : dones[1] + 1]


def test_prompt_while_busy_and_other_mid_turn_commands(fake_server, serve) -> None:
    server = fake_server(
        {
            "turns": [
                {"match": "busy one", "content": "working", "never_end": True},
                {"match": "busy three", "content": "after"},
            ]
        }
    )
    session = serve(server)
    session.prompt("busy one")
    session.expect("content", text="working")
    session.prompt("busy two")
    session.send({"cmd": "undo"})
    session.send({"cmd": "set_model", "model": "fake-model"})
    session.send({"cmd": "set_approval", "approve": False})
    session.prompt("   ")
    mid = [e for e in session.barrier() if e["event"] != "content"]
    assert mid == [
        {"event": "warning", "text": BUSY, "code": "busy"},
        {
            "event": "warning",
            "text": "turn in progress — cancel it or wait before undoing",
            "code": "busy",
        },
        {
            "event": "warning",
            "text": "turn in progress — cancel it or wait before switching models",
            "code": "busy",
        },
        {"event": "approval_changed", "approve": False, "mode": "auto"},
    ]
    session.send({"cmd": "list_models"})  # safe mid-turn; answered in the background
    assert session.expect("models")["current"] == "fake-model"
    session.send({"cmd": "cancel"})
    after = session.read_until("done")
    assert {"event": "warning", "text": "turn cancelled", "code": ""} in after
    session.expect("context")
    assert len(server.chat_requests()) == 1
    events = _turn(session, "busy three")
    assert session.names(events).count("done") == 1
    assert {"event": "content", "text": "after"} in events
    chats = server.chat_requests()
    assert len(chats) == 2
    assert "busy two" not in json.dumps(chats[1]["messages"])
    assert session.close() == 0


def test_blank_prompt_is_ignored(fake_server, serve) -> None:
    server = fake_server({})
    session = serve(server)
    for text in ("", "   ", "\n\t"):
        session.prompt(text)
    session.send(b"   ")
    session.send(b"")
    assert session.barrier() == []
    assert server.chat_requests() == []
    assert session.close() == 0


# ----------------------------------------------------- asks and reviews


def test_asks_and_reviews_share_one_id_counter(fake_server, serve, project) -> None:
    (project / "f.txt").write_text("a\nb\nc", encoding="utf-8")
    server = fake_server(
        {
            "turns": [
                {"match": "ids one", "tool_calls": [tool_call("bash", command="echo one")]},
                {"match": "ids one", "content": "fine"},
                {
                    "match": "ids two",
                    "tool_calls": [
                        edit_call("f.txt", "b", "B"),
                        tool_call("bash", command="echo two"),
                    ],
                },
                {"match": "ids two", "content": "fine"},
                {"match": "ids three", "tool_calls": [edit_call("f.txt", "c", "C")]},
                {"match": "ids four", "tool_calls": [tool_call("bash", command="echo four")]},
                {"match": "ids four", "content": "fine"},
            ]
        }
    )
    session = serve(server)
    session.prompt("ids one")
    ask = session.expect("ask")
    session.send({"cmd": "answer", "id": ask["id"], "text": "deny"})
    session.read_until("context")
    session.send({"cmd": "hello", "edit_review": True})
    session.expect("capabilities")
    session.prompt("ids two")
    review = session.expect("edit_review")
    session.send({"cmd": "edit_decision", "id": review["id"], "apply": False})
    ask = session.expect("ask")
    session.send({"cmd": "answer", "id": ask["id"], "text": "deny"})
    session.read_until("context")
    session.prompt("ids three")
    review = session.expect("edit_review")
    session.send({"cmd": "cancel"})
    session.read_until("context")
    session.prompt("ids four")
    ask = session.expect("ask")
    session.send({"cmd": "answer", "id": ask["id"], "text": "deny"})
    session.read_until("context")
    ids = [e["id"] for e in session.events if e["event"] in ("ask", "edit_review")]
    assert ids == [1, 2, 3, 4, 5]
    assert (project / "f.txt").read_text(encoding="utf-8") == "a\nb\nc"
    assert session.close() == 0


def test_cancel_closes_pending_review_before_done(fake_server, serve, project) -> None:
    (project / "f.txt").write_text("a\nb\nc", encoding="utf-8")
    server = fake_server({"turns": [{"tool_calls": [edit_call("f.txt", "b", "B")]}]})
    session = serve(server)
    session.send({"cmd": "hello", "edit_review": True})
    session.expect("capabilities")
    session.prompt("review then cancel")
    review = session.expect("edit_review")
    session.send({"cmd": "cancel"})
    events = session.read_until("done")
    names = session.names(events)
    assert names[0] == "edit_review_closed" and events[0]["id"] == review["id"]
    assert names.count("edit_review_closed") == 1
    assert {"event": "warning", "text": "turn cancelled", "code": ""} in events
    session.expect("context")
    # A late decision on a closed review is a silent no-op.
    session.send({"cmd": "edit_decision", "id": review["id"], "apply": True})
    session.send({"cmd": "cancel"})  # idle cancel: a no-op too
    assert session.barrier() == []
    assert (project / "f.txt").read_text(encoding="utf-8") == "a\nb\nc"
    assert session.close() == 0


def test_dropped_reply_on_stdin_eof_means_deny(fake_server, serve, project) -> None:
    server = fake_server(
        {"turns": [{"tool_calls": [tool_call("write", path="n.txt", content="x")]}]}
    )
    session = serve(server)
    ready = session.events[0]
    session.prompt("drop one")
    session.expect("ask")
    assert session.close() == 0
    assert not (project / "n.txt").exists()
    saved = json.loads(Path(ready["session"]).read_text(encoding="utf-8"))
    assert any(m.get("content") == "drop one" for m in saved["messages"])


def test_without_hello_write_approval_is_an_ask_with_diff(fake_server, serve, project) -> None:
    (project / "f.txt").write_text("a\nb\nc", encoding="utf-8")
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [edit_call("f.txt", "b", "B")]},
                {"tool_calls": [tool_call("write", path="g.txt", content="hi\n")]},
                {"content": "ok"},
            ]
        }
    )
    session = serve(server)
    session.prompt("ask me")
    ask = session.expect("ask")
    assert ask == {
        "event": "ask",
        "id": 1,
        "question": "Allow edit: f.txt",
        "detail": ["@@ line 2 @@", "-b", "+B"],
        "choices": EDIT_CHOICES,
        "options": [
            {"id": "allow", "kind": "allow_once", "rule": ""},
            {"id": EDIT_CHOICES[1], "kind": "allow_session", "rule": ""},
            {"id": EDIT_CHOICES[2], "kind": "allow_project", "rule": "Edit(f.txt)"},
            {"id": EDIT_CHOICES[3], "kind": "allow_everywhere", "rule": "Edit(f.txt)"},
            {"id": "deny", "kind": "deny", "rule": ""},
        ],
    }
    session.send({"cmd": "answer", "id": 1, "text": "allow"})
    assert session.expect("tool_result")["ok"] is True
    ask = session.expect("ask")
    assert ask["question"] == "Allow write: g.txt (3 bytes)"
    assert ask["detail"] == ["+hi"]
    assert ask["choices"] == [
        "allow",
        "always allow write this session",
        "always allow 'Edit(g.txt)' in this project",
        "always allow 'Edit(g.txt)' everywhere",
        "deny",
    ]
    session.send({"cmd": "answer", "id": ask["id"], "text": "deny"})
    result = session.expect("tool_result")
    assert result["ok"] is False and "DENIED" in result["preview"]
    session.read_until("context")
    assert "edit_review" not in session.names()
    assert (project / "f.txt").read_text(encoding="utf-8") == "a\nB\nc"
    assert not (project / "g.txt").exists()
    assert session.close() == 0


def test_hello_edit_review_raises_a_review_instead_of_an_ask(fake_server, serve, project) -> None:
    (project / "f.txt").write_text("a\nb\nc", encoding="utf-8")
    server = fake_server({"turns": [{"tool_calls": [edit_call("f.txt", "b", "B")]}]})
    session = serve(server)
    session.send({"cmd": "hello", "edit_review": True})
    assert session.expect("capabilities") == {
        "event": "capabilities",
        "protocol_version": 1,
        "edit_review": True,
        "approve": True,
    }
    session.prompt("review it")
    events = session.read_until("edit_review")
    assert "ask" not in session.names(events)
    assert (project / "f.txt").read_text(encoding="utf-8") == "a\nb\nc"  # not yet on disk
    session.send({"cmd": "edit_decision", "id": events[-1]["id"], "apply": True})
    events = session.read_until("done")
    assert session.names(events)[:2] == ["tool_result", "edit_diff"]
    assert (project / "f.txt").read_text(encoding="utf-8") == "a\nB\nc"
    assert session.close() == 0


def test_approval_off_applies_edits_and_commands_without_asking(fake_server, serve, project):
    (project / "f.txt").write_text("a\nb\nc", encoding="utf-8")
    server = fake_server(
        {
            "turns": [
                {
                    "tool_calls": [
                        edit_call("f.txt", "b", "B"),
                        tool_call("bash", command="echo made > made.txt"),
                    ]
                },
                {"content": "ok"},
            ]
        }
    )
    session = serve(server)
    session.send({"cmd": "hello", "edit_review": True, "approve": False})
    assert session.expect("capabilities")["approve"] is False
    events = _turn(session, "go ahead")
    assert not {"ask", "edit_review"} & set(session.names(events))
    assert [e["ok"] for e in events if e["event"] == "tool_result"] == [True, True]
    assert (project / "f.txt").read_text(encoding="utf-8") == "a\nB\nc"
    assert (project / "made.txt").read_text(encoding="utf-8") == "made\n"
    assert session.close() == 0


def test_deny_rule_refuses_even_with_approval_off(fake_server, serve, project) -> None:
    (project / ".rift.json").write_text(
        json.dumps({"permissions": {"deny": ["Edit(secret.txt)"]}}), encoding="utf-8"
    )
    (project / "secret.txt").write_text("a\nb\nc", encoding="utf-8")
    server = fake_server(
        {"turns": [{"tool_calls": [edit_call("secret.txt", "b", "B")]}, {"content": "ok"}]}
    )
    session = serve(server)
    session.send({"cmd": "set_approval", "approve": False})
    session.expect("approval_changed")
    events = _turn(session, "go ahead")
    assert not {"ask", "edit_review", "edit_diff"} & set(session.names(events))
    result = next(e for e in events if e["event"] == "tool_result")
    assert result["ok"] is False
    assert "blocked by permission rule 'Edit(secret.txt)'" in result["preview"]
    assert (project / "secret.txt").read_text(encoding="utf-8") == "a\nb\nc"
    assert session.close() == 0


def test_ready_approve_reflects_the_user_config(fake_server, serve, project) -> None:
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"approve": False}), encoding="utf-8")
    server = fake_server(
        {"turns": [{"tool_calls": [tool_call("write", path="n.txt", content="x")]}]}
    )
    session = serve(server)
    assert session.events[0]["approve"] is False
    events = _turn(session, "go ahead")
    assert "ask" not in session.names(events)
    assert (project / "n.txt").read_text(encoding="utf-8") == "x"
    assert session.close() == 0

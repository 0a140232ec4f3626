"""list_models, set_model, list_sessions and undo over the wire."""

from __future__ import annotations

from .serve_session import edit_call

TWO_MODELS = [
    {"name": "fake-model", "capabilities": ["tools"], "context_length": 32768},
    {"name": "other-model", "capabilities": ["tools"], "context_length": 32768},
]
UNDO_INFO = "restored to pre-turn state:\n  f.txt\n(note: changes made via bash are not tracked)"


def test_list_models_and_switch(fake_server, serve) -> None:
    server = fake_server({"models": TWO_MODELS, "turns": [{"content": "hello"}]})
    session = serve(server)
    session.send({"cmd": "list_models"})
    models = session.expect("models")
    assert "fake-model" in models["models"] and "other-model" in models["models"]
    assert models["current"] == "fake-model"

    session.send({"cmd": "set_model", "model": "other-model"})
    changed = session.expect("model_changed")
    assert changed["model"] == "other-model"
    assert isinstance(changed["num_ctx"], int) and isinstance(changed["note"], str)
    assert session.next_event()["event"] == "context"  # right after model_changed

    session.send({"cmd": "list_models"})
    assert session.expect("models")["current"] == "other-model"
    session.prompt("hi there")
    session.read_until("done")
    assert server.chat_requests()[-1]["model"] == "other-model"
    assert session.close() == 0


def test_set_model_failure_is_a_warning_and_keeps_the_model(fake_server, serve) -> None:
    session = serve(fake_server({}))
    session.send({"cmd": "set_model", "model": "no-such-model"})
    events = session.barrier()
    assert len(events) <= 1
    if not events:  # the switch runs on the work queue; its answer may trail the barrier
        events = [session.expect("warning")]
    assert events[0]["event"] == "warning"
    assert events[0]["text"].startswith("model switch failed: ")
    session.send({"cmd": "list_models"})
    assert session.expect("models")["current"] == "fake-model"
    assert "model_changed" not in session.names()
    assert session.close() == 0


def test_list_sessions_shape(fake_server, serve, project) -> None:
    session = serve(fake_server({"turns": [{"content": "hello"}]}))
    ready = session.events[0]
    session.prompt("what is here?\nsecond line")
    session.read_until("context")
    session.send({"cmd": "list_sessions"})
    items = session.expect("sessions")["items"]
    assert len(items) == 1
    item = items[0]
    assert set(item) == {"path", "title", "saved_at", "cwd", "model", "turns"}
    assert item["path"] == ready["session"]
    assert item["title"] == "what is here?"
    assert item["cwd"] == str(project) == ready["cwd"]
    assert item["model"] == "fake-model"
    assert item["turns"] == 1
    assert isinstance(item["saved_at"], int)
    assert session.close() == 0


def test_undo_restores_the_file_and_reports_it(fake_server, serve, project) -> None:
    (project / "f.txt").write_bytes(b"a\nb\nc\n")
    server = fake_server({"turns": [{"tool_calls": [edit_call("f.txt", "b", "B")]}]})
    session = serve(server)
    session.send({"cmd": "set_approval", "approve": False})
    session.prompt("go ahead")
    session.read_until("context")
    assert (project / "f.txt").read_bytes() == b"a\nB\nc\n"
    session.send({"cmd": "undo"})
    assert session.expect("info") == {"event": "info", "text": UNDO_INFO}
    assert (project / "f.txt").read_bytes() == b"a\nb\nc\n"
    session.send({"cmd": "undo"})
    warning = session.expect("warning")
    assert warning["text"] == "nothing to undo (only write/edit tool changes are tracked)"
    assert session.close() == 0

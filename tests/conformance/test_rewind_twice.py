"""Issue 32, regression 3: a second rewind drops the same turns from the conversation as
it undoes on disk (the journal's turn counter follows the conversation back)."""

from __future__ import annotations

from .serve_session import tool_call


def _write(name: str) -> dict[str, object]:
    return {"tool_calls": [tool_call("write", path=name, content=f"{name}\n")]}


def test_rewind_after_a_rewind_keeps_files_and_conversation_together(
    fake_server, serve, project
) -> None:
    turns = [_write("one.txt"), {"content": "ok"}, _write("two.txt"), {"content": "ok"}]
    turns += [_write("three.txt"), {"content": "ok"}]
    session = serve(fake_server({"turns": turns}))
    session.send({"cmd": "set_approval", "approve": False})
    for text in ("first", "second"):
        session.prompt(text)
        session.read_until("done")
    session.send({"cmd": "rewind", "n": 1})
    session.read_until("history")
    assert (project / "one.txt").exists() and not (project / "two.txt").exists()
    session.prompt("third")
    session.read_until("done")
    session.send({"cmd": "rewind", "n": 2})
    history = session.read_until("history")[-1]
    assert not any(m.get("role") == "user" for m in history["messages"])
    assert not (project / "one.txt").exists(), "one.txt left behind by the second rewind"
    assert not (project / "three.txt").exists()
    assert session.close() == 0

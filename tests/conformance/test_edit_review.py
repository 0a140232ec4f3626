"""edit_review segments and a partial-accept round trip over the wire."""

from __future__ import annotations

import pytest

from .serve_session import edit_call, reassemble, tool_call


def same(*lines: str) -> dict[str, object]:
    return {"same": True, "lines": list(lines)}


def change(old: list[str], new: list[str]) -> dict[str, object]:
    return {"same": False, "old": old, "new": new}


SEGMENT_CASES = [
    # (file text before, tool call, expected segments)
    ("a\nb\nc", edit_call("f.txt", "b", "B"), [same("a"), change(["b"], ["B"]), same("c")]),
    (
        "a\nb\nc\nd\ne",
        tool_call("write", path="f.txt", content="a\nB\nc\nd\nE"),
        [same("a"), change(["b"], ["B"]), same("c", "d"), change(["e"], ["E"])],
    ),
    (
        "a\nc",
        tool_call("write", path="f.txt", content="a\nb\nc"),
        [same("a"), change([], ["b"]), same("c")],
    ),
    # An empty old text is all insertion (no phantom empty line).
    ("", tool_call("write", path="f.txt", content="x\ny"), [change([], ["x", "y"])]),
]


@pytest.mark.parametrize(("before", "call", "segments"), SEGMENT_CASES)
def test_segments_on_the_wire(fake_server, serve, project, before, call, segments) -> None:
    (project / "f.txt").write_text(before, encoding="utf-8")
    server = fake_server({"turns": [{"tool_calls": [call]}]})
    session = serve(server)
    session.send({"cmd": "hello", "edit_review": True})
    session.prompt("show me")
    review = session.expect("edit_review")
    assert review["old"] == before
    assert review["segments"] == segments
    assert reassemble(review["segments"], set(range(len(segments)))) == review["new"]
    assert reassemble(review["segments"], set()) == review["old"]
    session.send({"cmd": "edit_decision", "id": review["id"], "apply": False})
    result = session.expect("tool_result")
    assert result["ok"] is False
    session.read_until("done")
    assert (project / "f.txt").read_text(encoding="utf-8") == before
    assert session.close() == 0


OLD = "one\ntwo\nthree\nfour\nfive\nsix\n"
NEW = "one\nTWO\nthree\nfour\nFIVE\nsix\nseven\n"


def test_partial_review_writes_the_reassembled_content(fake_server, serve, project) -> None:
    (project / "notes.txt").write_bytes(OLD.encode())
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [tool_call("write", path="notes.txt", content=NEW)]},
                {"content": "ok"},
            ]
        }
    )
    session = serve(server)
    session.send({"cmd": "hello", "edit_review": True})
    session.prompt("tidy the notes")
    review = session.expect("edit_review")
    assert review["tool"] == "write" and review["path"] == "notes.txt"
    segments = review["segments"]
    changes = [i for i, s in enumerate(segments) if not s["same"]]
    assert len(changes) == 3
    keep = {changes[0], changes[2]}  # accept TWO and seven, reject FIVE
    content = reassemble(segments, keep)
    assert content == "one\nTWO\nthree\nfour\nfive\nsix\nseven\n"
    session.send({"cmd": "edit_decision", "id": review["id"], "apply": True, "content": content})
    events = session.read_until("done")
    result = next(e for e in events if e["event"] == "tool_result")
    assert result["ok"] is True
    diff = next(e for e in events if e["event"] == "edit_diff")
    assert "+FIVE" not in diff["diff"] and "+TWO" in diff["diff"]
    assert (project / "notes.txt").read_bytes() == content.encode()
    assert session.close() == 0


def test_apply_without_content_writes_the_proposal(fake_server, serve, project) -> None:
    server = fake_server(
        {"turns": [{"tool_calls": [tool_call("write", path="n.txt", content="x\n")]}]}
    )
    session = serve(server)
    session.send({"cmd": "hello", "edit_review": True})
    session.prompt("make it")
    review = session.expect("edit_review")
    assert review["old"] == "" and review["new"] == "x\n"
    session.send({"cmd": "edit_decision", "id": review["id"], "apply": True})
    session.read_until("done")
    assert (project / "n.txt").read_bytes() == b"x\n"
    assert session.close() == 0

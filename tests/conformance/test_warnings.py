"""Bad input never stops the loop: each problem is one `warning`, then rift keeps answering."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .serve_session import ServeSession

COMMANDS = (
    "hello",
    "prompt",
    "answer",
    "edit_decision",
    "cancel",
    "undo",
    "list_sessions",
    "list_models",
    "set_model",
    "set_approval",
)
FIVE_MB = 5 * 1024 * 1024


def _exactly(text: str) -> Callable[[str], bool]:
    return lambda got: got == text


def _starts(prefix: str) -> Callable[[str], bool]:
    return lambda got: got.startswith(prefix)


def _lists_every_command(got: str) -> bool:
    return got.startswith("unknown cmd") and all(name in got for name in COMMANDS)


APPROVE_FIELD = _exactly("set_approval needs a boolean 'approve' field")
MODEL_FIELD = _exactly("set_model needs a 'model' field")

# (case, command line, check on the warning text)
CASES: list[tuple[str, Any, Callable[[str], bool]]] = [
    ("malformed json", b'{"cmd":', _starts("bad command json: ")),
    ("trailing garbage", b'{"cmd":"undo"} x', _starts("bad command json: ")),
    ("json array", b"[1, 2]", _starts("bad command json")),
    ("json string", b'"prompt"', _starts("bad command json")),
    ("json number", b"42", _starts("bad command json")),
    ("unknown cmd", {"cmd": "frobnicate"}, _lists_every_command),
    ("missing cmd", {"text": "hi"}, _lists_every_command),
    ("non-string cmd", {"cmd": 7}, _lists_every_command),
    ("answer id as string", {"cmd": "answer", "id": "1", "text": "allow"}, _starts("answer")),
    ("answer text as number", {"cmd": "answer", "id": 1, "text": 5}, _starts("answer")),
    (
        "apply as string",
        {"cmd": "edit_decision", "id": 1, "apply": "yes"},
        _starts("edit_decision"),
    ),
    (
        "content as number",
        {"cmd": "edit_decision", "id": 1, "apply": True, "content": 3},
        _starts("edit_decision"),
    ),
    ("approve missing", {"cmd": "set_approval"}, APPROVE_FIELD),
    ("approve as string", {"cmd": "set_approval", "approve": "false"}, APPROVE_FIELD),
    ("approve as number", {"cmd": "set_approval", "approve": 0}, APPROVE_FIELD),
    ("model missing", {"cmd": "set_model"}, MODEL_FIELD),
    ("model blank", {"cmd": "set_model", "model": "  "}, MODEL_FIELD),
    ("model as number", {"cmd": "set_model", "model": 3}, MODEL_FIELD),
    ("prompt text as number", {"cmd": "prompt", "text": 5}, _starts("prompt")),
    (
        "unknown skill",
        {"cmd": "prompt", "text": "/skill:nope do it"},
        _exactly("unknown skill 'nope'"),
    ),
    ("5 MB line", b'{"cmd":"prompt","text":"' + b"x" * FIVE_MB + b'"}', lambda t: "too long" in t),
    ("invalid UTF-8", b'{"cmd":"prompt","text":"\xff\xfe"}', lambda t: "UTF-8" in t),
    ("lone surrogate half", b'\xed\xa0\x80{"cmd":"undo"}', lambda t: "UTF-8" in t),
]

# Ignored without any event (the spec): unknown or missing ids.
SILENT: list[tuple[str, Any]] = [
    ("answer unknown id", {"cmd": "answer", "id": 99, "text": "allow"}),
    ("answer missing id", {"cmd": "answer", "text": "allow"}),
    ("decision unknown id", {"cmd": "edit_decision", "id": 99, "apply": True}),
    ("idle cancel", {"cmd": "cancel"}),
]


@pytest.fixture
def session(fake_server: Any, serve: Any) -> Any:
    server = fake_server({})
    running = serve(server)
    yield running
    assert running.close() == 0
    assert server.chat_requests() == [], "a bad command started a turn"


def test_each_bad_command_is_one_warning_and_serving_continues(session: ServeSession) -> None:
    for case, line, check in CASES:
        session.send(line)
        events = session.barrier()  # still answers list_sessions
        assert [e["event"] for e in events] == ["warning"], f"{case}: {events}"
        assert check(events[0]["text"]), f"{case}: {events[0]['text']!r}"


def test_unknown_ids_and_idle_cancel_are_silent(session: ServeSession) -> None:
    for case, line in SILENT:
        session.send(line)
        assert session.barrier() == [], case


def test_hello_with_a_non_boolean_field_warns_then_acknowledges(session: ServeSession) -> None:
    session.send({"cmd": "hello", "edit_review": "yes"})
    events = session.barrier()
    assert [e["event"] for e in events] == ["warning", "capabilities"]
    assert events[1]["edit_review"] is False

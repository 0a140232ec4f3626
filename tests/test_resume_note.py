"""The note a resumed session gives the model about files it read and changed (issue 32)."""

from __future__ import annotations

from rift.core.sessions.resume_note import resume_note
from rift.models.base import Message


def _call(name: str, path: str) -> Message:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": name, "arguments": {"path": path}}}],
    }


def test_the_note_names_files_read_and_changed_once_each() -> None:
    messages: list[Message] = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "fix it"},
        _call("read", "a.py"),
        _call("read", "b.py"),
        _call("edit", "a.py"),
        _call("write", "new.py"),
        _call("read", "b.py"),
        _call("bash", "ignored"),
    ]
    note = resume_note(messages)
    assert note.startswith("[Resumed session.")
    assert "changed: a.py, new.py." in note
    assert "Files it read: b.py." in note  # a.py is listed once, as changed
    assert note.endswith("]\n\n")


def test_no_note_for_a_session_that_touched_no_file() -> None:
    assert (
        resume_note([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
        == ""
    )


def test_a_long_list_ends_with_a_count() -> None:
    messages = [_call("read", f"f{i}.py") for i in range(25)]
    assert "f19.py and 5 more." in resume_note(messages)

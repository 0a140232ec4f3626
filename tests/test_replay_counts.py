"""A resumed conversation shows the same edit counts the live turn showed.

Live, `turn.py` counts a write's or edit's lines with `changed_lines` over the
real diff; the replay used to count the trimmed preview instead, so a write
longer than the preview was shown with fewer added lines on resume.
"""

from __future__ import annotations

from rift.core.permissions.hunks import changed_lines
from rift.core.sessions.replay import replay
from rift.events import EditDiff
from rift.models.base import Message


def _call(tool: str, args: dict[str, object]) -> list[Message]:
    call = {"id": "c1", "type": "function", "function": {"name": tool, "arguments": args}}
    return [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [call]},  # type: ignore[typeddict-item]
        {"role": "tool", "content": "ok", "tool_call_id": "c1"},  # type: ignore[typeddict-item]
    ]


def _diffs(messages: list[Message]) -> list[EditDiff]:
    return [e for e in replay(messages) if isinstance(e, EditDiff)]


def test_replayed_long_write_counts_every_line() -> None:
    content = "".join(f"line {i}\n" for i in range(300))
    [diff] = _diffs(_call("write", {"path": "big.txt", "content": content}))
    assert (diff.added, diff.removed) == (300, 0)


def test_replayed_edit_counts_match_the_live_count() -> None:
    old = "".join(f"a{i}\n" for i in range(200))
    new = old.replace("a3\n", "b3\n").replace("a190\n", "b190\n")
    [diff] = _diffs(_call("edit", {"path": "f.txt", "old_string": old, "new_string": new}))
    assert (diff.added, diff.removed) == changed_lines(old, new) == (2, 2)

"""`/share`'s transcript: self-contained, folded, escaped (issue 32)."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from rift.core.sessions.share import share, transcript_html
from rift.models.base import Message

MESSAGES: list[Message] = [
    {"role": "user", "content": "fix <b>max_of</b> in stats.py"},
    {
        "role": "assistant",
        "content": "I'll edit it.",
        "thinking": "min vs max",
        "tool_calls": [
            {
                "id": "c1",
                "function": {
                    "name": "edit",
                    "arguments": {
                        "path": "stats.py",
                        "old_string": "return min(xs)",
                        "new_string": "return max(xs)",
                    },
                },
            }
        ],
    },
    {"role": "tool", "content": "edited stats.py", "tool_name": "edit", "tool_call_id": "c1"},
    {"role": "assistant", "content": "Done: <script>alert(1)</script>"},
]


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs.extend(attrs)


def test_the_transcript_is_one_self_contained_page_with_folded_tools() -> None:
    page = transcript_html(MESSAGES, title="rift session", meta="model m")
    parser = _Tags()
    parser.feed(page)
    assert "script" not in parser.tags  # the model's <script> is text, not a tag
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;b&gt;max_of&lt;/b&gt;" in page
    assert not [v for k, v in parser.attrs if k in ("src", "href")]  # nothing fetched
    assert parser.tags.count("details") >= 3  # thinking, the call, its result, the diff
    assert "<summary>tool: edit</summary>" in page
    assert "return max(xs)" in page and 'class="add"' in page


def test_share_writes_atomically_and_refuses_a_symlink(tmp_path: Path) -> None:
    out = share(MESSAGES, tmp_path / "t.html", title="t")
    assert out.read_text().startswith("<!doctype html>")
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "link.html").symlink_to(victim)
    with pytest.raises(OSError):
        share(MESSAGES, tmp_path / "link.html", title="t")
    assert victim.read_text() == "keep"

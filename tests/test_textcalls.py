"""ContentGate (issue 31): tool calls written as text are held back, never shown; `<think>`
goes to thinking; every other character reaches the transcript, whatever the chunking."""

from __future__ import annotations

import pytest

from rift.core.loop.textcalls import ContentGate

KNOWN = {"edit", "read"}
CALL = '{"name": "read", "arguments": {"path": "a.py"}}'


def run(text: str, size: int) -> tuple[str, str, list[str]]:
    """Feed `text` in chunks of `size`: (shown content, thinking, names of held calls)."""
    gate = ContentGate(KNOWN)
    pieces = []
    for i in range(0, len(text), size):
        pieces += gate.feed(text[i : i + size])
    pieces += gate.finish()
    content = "".join(t for k, t in pieces if k == "content")
    thinking = "".join(t for k, t in pieces if k == "thinking")
    return content, thinking, [c.name for c in gate.calls]


SIZES = [1, 2, 3, 7, 1000]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"<tool_call>\n{CALL}\n</tool_call>", ""),
        (f"I'll look.\n<tool_call>\n{CALL}\n</tool_call>", "I'll look.\n"),
        (f"```json\n{CALL}\n```", ""),
        (f"Reading it:\n```\n{CALL}\n```\n", "Reading it:\n\n"),
        (f"  {CALL}", ""),
        (f"[{CALL}]", ""),
        (f"<tool_call>\n{CALL}", ""),  # the closing tag never came
    ],
)
def test_calls_are_held_back(text: str, shown: str, size: int) -> None:
    content, _, calls = run(text, size)
    assert calls == ["read"]
    assert content == shown


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "text",
    [
        "Plain answer with `inline` code and a < sign.",
        "```python\nprint('{')\n```\nDone.",
        '```json\n{"name": "package", "version": "1.0"}\n```',
        '{"name": "nope", "arguments": {}}',  # an unknown tool is just text
        "[1] is the first item, {2} the second.",
        "<tool_call>not json</tool_call> then text",
        "a ``` fence mid-line is prose",
        "{ unclosed brace and prose",
    ],
)
def test_everything_else_is_shown_verbatim(text: str, size: int) -> None:
    content, thinking, calls = run(text, size)
    assert (content, thinking, calls) == (text, "", [])


@pytest.mark.parametrize("size", SIZES)
def test_think_goes_to_thinking(size: int) -> None:
    text = f"<think>\nthe user wants a.py\n</think>\n\nSure.<tool_call>{CALL}</tool_call>"
    content, thinking, calls = run(text, size)
    assert thinking == "\nthe user wants a.py\n"
    assert content == "Sure."
    assert calls == ["read"]


def test_unclosed_think_stays_thinking() -> None:
    assert run("<think>still going", 3)[:2] == ("", "still going")

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


EDIT = '{"name": "edit", "arguments": {"path": "a.py", "old_string": "-", "new_string": "+"}}'


@pytest.mark.parametrize("size", SIZES)
def test_every_bare_call_line_is_a_call_not_only_the_first(size: int) -> None:
    """A small model on llama-server writes one bare JSON call a line; the second and later
    lines used to pass as prose, be stored as the reply and fill the window (seen: 8,720
    characters of call lines, then a 400 "exceeds the available context size")."""
    content, _, calls = run(f"{CALL}\n{EDIT}\n", size)
    assert calls == ["read", "edit"]
    assert content.strip() == ""


@pytest.mark.parametrize("size", SIZES)
def test_a_call_repeated_in_one_reply_ends_the_reply(size: int) -> None:
    gate = ContentGate(KNOWN)
    text = f"{CALL}\n{EDIT}\n" * 5
    fed = 0
    for i in range(0, len(text), size):
        gate.feed(text[i : i + size])
        fed = i + size
        if gate.looping:
            break
    assert gate.looping
    assert [c.name for c in gate.calls] == ["read", "edit"]  # each once
    assert fed < len(text) // 2 or size >= len(text)  # noticed at the first repeat


def test_prose_after_a_call_is_still_shown() -> None:
    content, _, calls = run(f"{CALL}\nThat reads a.py.\n{{not json}} stays prose", 3)
    assert calls == ["read"]
    assert content == "\nThat reads a.py.\n{not json} stays prose"

"""The embedded provider's event side and its refusals, without loading a model."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from rift.core.loop.hardening import bad_arguments
from rift.errors import ModelNotUsable
from rift.models.base import ChatRequest, ContentDelta, ModelEvent, ToolCall
from rift.models.embedded import (
    EmbeddedProvider,
    _RepeatWatch,
    _ReplyAssembler,
    _template_messages,
)


def replay(assembler: _ReplyAssembler, pieces: list[str]) -> list[ModelEvent]:
    events: list[ModelEvent] = []
    for piece in pieces:
        events += assembler.feed(piece)
    return events + list(assembler.finish())


def test_a_constrained_final_answer_streams_and_is_not_repeated() -> None:
    pieces = ['{"name": "final_answer", "arguments": {"text": "Fixed', ' add()."', "}}"]
    events = replay(_ReplyAssembler(constrained=True, offered=True), pieces)
    assert events == [ContentDelta("Fixed"), ContentDelta(" add().")]


def test_a_constrained_call_streams_nothing_and_ends_as_a_call() -> None:
    pieces = ['{"name": "read", ', '"arguments": {"path": "a.py"}}']
    events = replay(_ReplyAssembler(constrained=True, offered=True), pieces)
    assert events == [ToolCall(id=None, name="read", arguments={"path": "a.py"})]


def test_a_call_cut_off_by_max_tokens_is_reported_as_invalid_arguments() -> None:
    pieces = ['{"name": "write", "arguments": {"path": "a.py", "content": "x = ']
    [event] = replay(_ReplyAssembler(constrained=True, offered=True), pieces)
    assert isinstance(event, ToolCall)
    assert (event.name, event.arguments) == ("write", None)
    assert event.raw_arguments.startswith('{"name": "write"')


def test_unconstrained_prose_streams_and_a_fenced_call_is_held_back() -> None:
    pieces = [
        "I will read it.\n",
        "```json\n",
        '{"name": "read", "arguments": {"path": "a"}}',
        "\n```",
    ]
    events = replay(_ReplyAssembler(constrained=False, offered=True), pieces)
    assert events == [
        ContentDelta("I will read it.\n"),
        ToolCall(id=None, name="read", arguments={"path": "a"}),
    ]


def test_without_tools_everything_is_content() -> None:
    pieces = ['{"name": "read", ', '"arguments": {}}']
    events = replay(_ReplyAssembler(constrained=False, offered=False), pieces)
    assert "".join(e.text for e in events if isinstance(e, ContentDelta)) == "".join(pieces)
    assert not [e for e in events if isinstance(e, ToolCall)]


def test_template_messages_carry_calls_as_objects_and_tool_results() -> None:
    converted = _template_messages(
        [
            {"role": "user", "content": "hi", "images": ["data:image/png;base64,AA"]},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "c1", "function": {"name": "ls", "arguments": {}}}],
            },
            {"role": "tool", "content": "a.py", "tool_name": "ls", "tool_call_id": "c1"},
        ]
    )
    assert converted == [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": {}}}
            ],
        },
        {"role": "tool", "content": "a.py", "name": "ls", "tool_call_id": "c1"},
    ]


def test_without_the_extra_the_provider_refuses_with_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for runtime in ("llama_cpp", "cyllama"):  # as on a machine without either
        monkeypatch.setitem(sys.modules, runtime, None)
    provider = EmbeddedProvider(tmp_path)
    with pytest.raises(ModelNotUsable, match=r"'local' extra\) is not installed.*pip install"):
        asyncio.run(provider.show(""))

    async def first_event() -> object:
        request = ChatRequest(model="", messages=[{"role": "user", "content": "hi"}])
        return await anext(aiter(provider.stream_chat(request)))

    with pytest.raises(ModelNotUsable, match="not installed"):
        asyncio.run(first_event())


def test_a_generation_that_repeats_itself_is_stopped_long_before_the_cap() -> None:
    watch = _RepeatWatch()
    head = '{"name": "write", "arguments": {"path": "calc.py", "content": "def add(a, b):\\n'
    pieces = [head] + ["    return a + b\\n"] * 400
    stopped_at = next(i for i, piece in enumerate(pieces) if watch.looping(piece))
    assert stopped_at < 60  # of 400 pieces: about 1,000 characters instead of 8,000
    assert not any(_RepeatWatch().looping(p) for p in [head, "    return a + b\\n" * 3])


def test_a_stopped_repetition_ends_as_broken_arguments_summarized_for_the_model() -> None:
    text = '{"name": "write", "arguments": {"path": "a.py", "content": "' + "x = 1\\n" * 300
    [event] = replay(_ReplyAssembler(constrained=True, offered=True), [text])
    assert isinstance(event, ToolCall) and event.arguments is None
    assert event.raw_arguments == text  # whole: the summary needs to see the repetition
    message = bad_arguments(event.name, event.raw_arguments)
    assert "x = 1" not in message
    assert "repeats the same text over and over" in message

"""The embedded model's tool-call schema, lenient parser and streaming decoder (no extra needed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rift.models.base import Message, ToolCall
from rift.models.embedded_calls import (
    FINAL_ANSWER,
    FinalAnswerStream,
    blocked_tool,
    final_admitted,
    parse_reply,
    step_tools,
    tool_choice_schema,
    tool_names_schema,
)
from rift.tools import builtin_tools

TOOLS = [builtin_tools()[name].schema() for name in ("read", "edit", "bash")]


# ------------------------------------------------------------------ schema


def test_schema_has_one_branch_per_tool_plus_final_answer() -> None:
    schema = tool_choice_schema(TOOLS)
    names = [b["properties"]["name"]["const"] for b in schema["anyOf"]]
    assert names == ["read", "edit", "bash", FINAL_ANSWER]
    for branch in schema["anyOf"]:
        assert branch["required"] == ["name", "arguments"]
        assert branch["additionalProperties"] is False


def test_each_branch_carries_its_own_tool_parameters_closed() -> None:
    read = tool_choice_schema(TOOLS)["anyOf"][0]["properties"]["arguments"]
    assert read["required"] == ["path"]
    assert set(read["properties"]) == {"path", "offset", "limit"}
    assert read["additionalProperties"] is False
    answer = tool_choice_schema(TOOLS)["anyOf"][-1]["properties"]["arguments"]
    assert answer["properties"] == {"text": {"type": "string"}}
    assert answer["required"] == ["text"]


def test_schema_does_not_modify_the_tool_definitions() -> None:
    before = json.dumps(TOOLS, sort_keys=True)
    tool_choice_schema(TOOLS)
    assert json.dumps(TOOLS, sort_keys=True) == before


def test_tools_without_parameters_get_an_empty_closed_object() -> None:
    schema = tool_choice_schema([{"type": "function", "function": {"name": "now"}}])
    args = schema["anyOf"][0]["properties"]["arguments"]
    assert args == {"type": "object", "properties": {}, "additionalProperties": False}


def test_the_enum_fallback_names_every_tool_and_final_answer() -> None:
    schema = tool_names_schema(TOOLS)
    assert schema["properties"]["name"]["enum"] == ["read", "edit", "bash", FINAL_ANSWER]
    assert schema["properties"]["arguments"] == {"type": "object"}


# ------------------------------------------------------------------ parsing


def call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(id=None, name=name, arguments=dict(arguments))


def test_grammar_output_is_one_call() -> None:
    assert parse_reply('{"name": "read", "arguments": {"path": "a.py"}}') == (
        "",
        [call("read", path="a.py")],
    )


def test_final_answer_becomes_content() -> None:
    text = '{"name": "final_answer", "arguments": {"text": "Fixed add()."}}'
    assert parse_reply(text) == ("Fixed add().", [])


@pytest.mark.parametrize(
    "text",
    [
        'I will read it.\n```json\n{"name": "read", "arguments": {"path": "a.py"}}\n```',
        'I will read it.\n```\n{"name": "read", "arguments": {"path": "a.py"}}```',
        'I will read it.\n<tool_call>\n{"name": "read", "arguments": {"path": "a.py"}}\n'
        "</tool_call>",
        'I will read it. {"name": "read", "arguments": {"path": "a.py"}}',
    ],
)
def test_calls_are_found_in_fences_tags_and_prose(text: str) -> None:
    assert parse_reply(text) == ("I will read it.", [call("read", path="a.py")])


def test_an_unclosed_tool_call_tag_still_counts() -> None:
    text = '<tool_call>\n{"name": "ls", "arguments": {}}'
    assert parse_reply(text) == ("", [call("ls")])


def test_several_calls_in_a_list_or_in_several_blocks() -> None:
    listed = '[{"name": "ls", "arguments": {}}, {"name": "read", "arguments": {"path": "x"}}]'
    assert parse_reply(listed)[1] == [call("ls"), call("read", path="x")]
    blocks = (
        '```json\n{"name": "ls", "arguments": {}}\n```\n'
        '```json\n{"name": "read", "arguments": {"path": "x"}}\n```'
    )
    assert parse_reply(blocks)[1] == [call("ls"), call("read", path="x")]


def test_arguments_as_a_json_string_parameters_key_and_nested_function() -> None:
    assert parse_reply('{"name": "read", "arguments": "{\\"path\\": \\"a\\"}"}')[1] == [
        call("read", path="a")
    ]
    assert parse_reply('{"name": "read", "parameters": {"path": "a"}}')[1] == [
        call("read", path="a")
    ]
    assert parse_reply('{"function": {"name": "read", "arguments": {"path": "a"}}}')[1] == [
        call("read", path="a")
    ]


def test_arguments_that_are_not_an_object_are_reported_raw() -> None:
    _, calls = parse_reply('{"name": "read", "arguments": "a.py"}')
    assert calls == [ToolCall(id=None, name="read", arguments=None, raw_arguments="a.py")]


@pytest.mark.parametrize(
    "text",
    [
        "Done: add() now adds.",
        "Here is the fix:\n```python\ndef add(a, b):\n    return a + b\n```",
        '```json\n{"version": 2}\n```',
        '{"name": "read"',
        "",
    ],
)
def test_text_without_a_call_is_all_content(text: str) -> None:
    assert parse_reply(text) == (text, [])


# ------------------------------------------------------------ streaming


def stream(pieces: list[str]) -> list[str]:
    decoder = FinalAnswerStream()
    out, text = [], ""
    for piece in pieces:
        text += piece
        delta = decoder.feed(text)
        if delta:
            out.append(delta)
    return out


def test_final_answer_text_streams_as_it_grows() -> None:
    pieces = ['{"name": "final', '_answer", "arguments": {"text": "Fix', "ed add", '()."}}']
    assert stream(pieces) == ["Fix", "ed add", "()."]


def test_escapes_are_shown_only_when_complete() -> None:
    pieces = ['{"name":"final_answer","arguments":{"text":"a\\', "nb \\u00", 'e9 \\"q\\""}}']
    out = stream(pieces)
    assert "".join(out) == 'a\nb é "q"'
    assert out[0] == "a"


def test_surrogate_pairs_wait_for_their_low_half() -> None:
    pieces = ['{"name": "final_answer", "arguments": {"text": "ok \\ud83d', '\\ude00!"}}']
    assert stream(pieces) == ["ok ", "\U0001f600!"]


def test_a_tool_call_streams_nothing() -> None:
    decoder = FinalAnswerStream()
    assert decoder.feed('{"name": "write", "arguments": {"text": "x"') == ""
    assert not decoder.active


# ------------------------------------------------------------ per-step tools

SMALL = [builtin_tools()[n].schema() for n in ("read", "write", "edit", "bash", "ls", "grep")]


def names(tools: list[dict[str, Any]]) -> list[str]:
    return [t["function"]["name"] for t in tools]


def read_call(call_id: str, path: str) -> Message:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": call_id, "function": {"name": "read", "arguments": {"path": path}}}],
    }


def result(call_id: str, text: str) -> Message:
    return {"role": "tool", "content": text, "tool_name": "read", "tool_call_id": call_id}


TASK: list[Message] = [
    {"role": "system", "content": "sys"},
    {"role": "user", "content": "fix calc.py"},
]


def test_the_first_step_of_a_task_only_looks() -> None:
    assert names(step_tools(SMALL, TASK)) == ["read", "ls", "grep"]


def test_after_a_read_edit_replaces_write_and_only_on_read_paths() -> None:
    """Offered write for a file it had just read, the 1.5B model copied the tool result
    into it (once, a bare `<tool_response>` that emptied the file); its edits were right."""
    messages = [*TASK, read_call("c1", "calc.py"), result("c1", "1\tx = 1")]
    admitted = step_tools(SMALL, messages)
    assert names(admitted) == ["read", "edit", "bash", "ls", "grep"]
    edit = admitted[1]["function"]["parameters"]
    assert edit["properties"]["path"] == {"type": "string", "enum": ["calc.py"]}
    assert SMALL[2]["function"]["parameters"]["properties"]["path"] == {"type": "string"}


def test_edit_is_absent_until_a_read_succeeded() -> None:
    messages = [*TASK, read_call("c1", "nope.py"), result("c1", "ERROR: no such file")]
    assert names(step_tools(SMALL, messages)) == ["read", "write", "bash", "ls", "grep"]


def test_a_nudge_is_not_a_new_task_but_a_new_prompt_is() -> None:
    done = [*TASK, read_call("c1", "calc.py"), result("c1", "1\tx = 1")]
    nudged = [*done, {"role": "user", "content": "[system] You have not changed any files."}]
    assert "edit" in names(step_tools(SMALL, nudged))
    again = [*done, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "more"}]
    assert names(step_tools(SMALL, again)) == ["read", "ls", "grep"]


def test_tool_sets_without_observers_are_left_whole() -> None:
    bash_only = [builtin_tools()["bash"].schema()]
    assert names(step_tools(bash_only, TASK)) == ["bash"]


def test_the_grammar_schema_follows_the_admitted_tools() -> None:
    messages = [*TASK, read_call("c1", "a.py"), result("c1", "1\tx")]
    branches = tool_choice_schema(step_tools(SMALL, messages))["anyOf"]
    edit = next(b for b in branches if b["properties"]["name"]["const"] == "edit")
    assert edit["properties"]["arguments"]["properties"]["path"]["enum"] == ["a.py"]


def failed(call_id: str, name: str, text: str) -> list[Message]:
    args: dict[str, Any] = {"path": "calc.py", "content": "x"}
    return [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": call_id, "function": {"name": name, "arguments": args}}],
        },
        {"role": "tool", "content": text, "tool_name": name, "tool_call_id": call_id},
    ]


REFUSED = "ERROR: repeated identical tool call refused; the result will not change."


def test_a_tool_refused_as_a_repeat_is_left_out_of_the_next_step() -> None:
    messages = [*TASK, read_call("c1", "calc.py"), result("c1", "1\tx = 1")]
    messages += [read_call("c2", "calc.py"), result("c2", "1\tx = 1")]
    messages += [read_call("c3", "calc.py"), result("c3", REFUSED)]
    assert blocked_tool(messages) == "read"
    assert names(step_tools(SMALL, messages)) == ["edit", "bash", "ls", "grep"]


def test_a_stuck_nudge_after_the_refusal_does_not_lift_the_block() -> None:
    messages = [*TASK, read_call("c1", "calc.py"), result("c1", REFUSED)]
    messages.append({"role": "user", "content": "[system] Several tool calls in a row failed."})
    assert blocked_tool(messages) == "read"


def test_two_failures_in_a_row_of_one_tool_block_it_for_a_step() -> None:
    messages = [*TASK, read_call("c0", "calc.py"), result("c0", "1\tx = 1")]
    messages += failed("c1", "edit", "ERROR: old_string not found in calc.py")
    assert blocked_tool(messages) == ""  # one failure: the model may correct itself
    messages += failed("c2", "edit", "ERROR: old_string not found in calc.py")
    assert blocked_tool(messages) == "edit"
    assert "edit" not in names(step_tools(SMALL, messages))
    messages += failed("c3", "bash", "ERROR: exit 1")
    assert blocked_tool(messages) == ""  # a different tool failed last


def test_a_refused_whole_file_write_steers_the_next_step_to_edit() -> None:
    messages = [*TASK, read_call("c0", "calc.py"), result("c0", "1\tx = 1")]
    messages += failed("c1", "write", "ERROR: write refused: calc.py already exists")
    assert blocked_tool(messages) == "write"
    assert names(step_tools(SMALL, messages)) == ["read", "edit", "bash", "ls", "grep"]


def test_a_new_task_lifts_the_block() -> None:
    messages = [*TASK, read_call("c1", "calc.py"), result("c1", REFUSED)]
    messages.append({"role": "user", "content": "now something else"})
    assert blocked_tool(messages) == ""


@pytest.mark.parametrize(
    "prompt", ["Change TIMEOUT in config.py to 30.", "Setze TIMEOUT in config.py auf 30."]
)
def test_a_handed_file_is_looked_at_before_an_answer_whatever_the_words(prompt: str) -> None:
    """The same rule in every language: no English verb decides it any more."""
    from rift.models.base import PREREAD_ID

    task: list[Message] = [*TASK[:1], {"role": "user", "content": prompt}]
    assert final_admitted(task)  # nothing handed over: it may simply answer
    handed = [*task, read_call(f"{PREREAD_ID}1", "config.py"), result(f"{PREREAD_ID}1", "x")]
    assert not final_admitted(handed)
    schema = tool_choice_schema(step_tools(SMALL, handed), final_admitted(handed))
    assert FINAL_ANSWER not in [b["properties"]["name"]["const"] for b in schema["anyOf"]]
    looked = [*handed, read_call("c1", "config.py"), result("c1", "    1\tTIMEOUT = 10")]
    assert final_admitted(looked)
    assert (
        FINAL_ANSWER
        in tool_names_schema(SMALL, final_admitted(looked))["properties"]["name"]["enum"]
    )


def test_with_no_tool_left_the_final_answer_stays() -> None:
    assert (
        tool_choice_schema([], final=False)["anyOf"][0]["properties"]["name"]["const"]
        == FINAL_ANSWER
    )


def test_after_rifts_own_read_the_model_may_edit_at_once_but_not_answer() -> None:
    """core/loop/preread.py reads the named file before the first step: edit is admitted on
    that path at once, while a change request still cannot be answered untouched."""
    from rift.models.base import PREREAD_ID

    task: list[Message] = [*TASK[:1], {"role": "user", "content": "Change TIMEOUT to 30."}]
    pre = f"{PREREAD_ID}1"
    messages = [*task, read_call(pre, "config.py"), result(pre, "    1\tTIMEOUT = 10")]
    assert "edit" in names(step_tools(SMALL, messages))
    assert not final_admitted(messages)
    own = [*messages, read_call("c2", "config.py"), result("c2", "    1\tTIMEOUT = 10")]
    assert final_admitted(own)


def test_after_a_successful_change_write_is_gone_for_the_task() -> None:
    """Seen: a right edit, then the edit's own result text written as the whole file."""
    listed: Message = {
        "role": "tool",
        "content": "calc.py",
        "tool_name": "ls",
        "tool_call_id": "c1",
    }
    ls_call: Message = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "c1", "function": {"name": "ls", "arguments": {}}}],
    }
    messages = [*TASK, ls_call, listed]
    assert "write" in names(step_tools(SMALL, messages))  # nothing read: a new file is fine
    wrote: Message = {"role": "tool", "content": "Wrote 6 bytes to new.py", "tool_name": "write"}
    assert "write" not in names(step_tools(SMALL, [*messages, wrote]))
    failed_write = {**wrote, "content": "ERROR: cannot write new.py: Permission denied"}
    assert "write" in names(step_tools(SMALL, [*messages, failed_write]))

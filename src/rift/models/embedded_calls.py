"""Tool calls for a small local model: the constraining schema and a lenient parser.

A 1.5B model often gets a free-text call format wrong; under a grammar that admits
exactly one JSON object, `{"name": <a tool or "final_answer">, "arguments": {...}}`,
it is parseable every time, and the reply itself becomes the pseudo-tool
`final_answer`, whose `text` is streamed as content (`FinalAnswerStream`). Without the
grammar `parse_reply` recovers calls leniently. Pure functions: no llama_cpp here.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from typing import Any

from rift.models.base import PREREAD_ID, Message, ToolCall
from rift.models.embedded_whole import (
    whole_file_path,
)

FINAL_ANSWER = "final_answer"
ANSWER_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
"""The parameters of `final_answer`: the reply, as `text`."""
OBSERVE = ("read", "ls", "grep")
_FINAL_PREFIX = re.compile(
    r'\s*\{\s*"name"\s*:\s*"final_answer"\s*,\s*"arguments"\s*:\s*\{\s*"text"\s*:\s*"'
)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCED = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_HEX = frozenset("0123456789abcdefABCDEF")
REFUSED_REPEAT = "ERROR: repeated identical tool call refused"
"""How the turn loop's refusal of a repeated call starts (core/hardening.REPEAT_REFUSAL)."""
REFUSED_WRITE = "ERROR: write refused:"
"""How tools/write.py's guard refusals start: the small model is steered to edit at once."""


# ------------------------------------------------------------------ the schema


def _closed(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's parameter schema with no room for invented keys (the grammar stays tight)."""
    params = copy.deepcopy(schema) if schema else {}
    params.setdefault("type", "object")
    params.setdefault("properties", {})
    params["additionalProperties"] = False
    return params


def tool_choice_schema(tools: list[dict[str, Any]], final: bool = True) -> dict[str, Any]:
    """The JSON schema of one step: a call to one of `tools`, or the final answer (left out
    when `final` is False, unless no tool is left). One `anyOf` branch per tool pins
    `arguments` to that tool's own parameters, so the model cannot pair `read` with `command`."""
    branches: list[dict[str, Any]] = []
    for tool in tools:
        function = tool.get("function", tool)
        branches.append(_branch(function["name"], _closed(function.get("parameters") or {})))
    if final or not branches:
        branches.append(_branch(FINAL_ANSWER, _closed(ANSWER_SCHEMA)))
    return {"anyOf": branches}


def _branch(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"name": {"const": name}, "arguments": arguments},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }


def step_tools(tools: list[dict[str, Any]], messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The tools the grammar admits at this step; the prompt still lists all of them.

    A 1.5B model tends to edit at once, inventing the text to replace, or to write back a
    file it just read with the tool result in it. So: until a tool has answered since the
    task arrived, only read, ls, grep and the final answer; `edit` only of paths `read`
    returned; no tool just refused as a repeat or failing twice running (`blocked_tool`);
    no `write` once a file was read or a write or edit succeeded in this task.
    """
    whole = whole_file_path(messages)
    if whole:  # rift asked for the whole file (core/wholefile.py): only that write fits
        forced = [_path_enum(tool, [whole]) for tool in tools if _tool_name(tool) == "write"]
        if forced:
            return forced
    names = {_tool_name(tool) for tool in tools}
    if not _answered_since_task(messages) and names & set(OBSERVE):
        tools = [tool for tool in tools if _tool_name(tool) in OBSERVE]
    blocked = blocked_tool(messages)
    changed = _changed_since_task(messages)
    seen = _read_paths(messages)
    admitted: list[dict[str, Any]] = []
    for tool in tools:
        name = _tool_name(tool)
        if name == blocked or (name == "write" and (changed or seen)):
            continue
        if name == "edit":
            if not seen:
                continue
            tool = _path_enum(tool, seen)
        admitted.append(tool)
    return admitted


def final_admitted(messages: Sequence[Message]) -> bool:
    """Whether this step may end the turn with a final answer: unless rift read files the
    task names for the model (core/loop/preread.py) and the model has not looked since,
    because a small model handed a file tends to claim a change it never made."""
    if _answered_since_task(messages, by_model=True):
        return True
    return not _answered_since_task(messages)  # nothing read for it: an answer may do


def blocked_tool(messages: Sequence[Message]) -> str:
    """The tool the next step may not call ("" for none): one just refused as a repeat
    or by the write guard, or one that failed twice running. A small model sends such a
    call again and again whatever the prompt says; leaving it out of the grammar stops it."""
    results: list[tuple[str, str]] = []
    for message in reversed(messages):
        if message["role"] == "tool":
            results.append((message.get("tool_name", ""), message.get("content", "")))
        elif message["role"] == "user" and not message.get("content", "").startswith("[system]"):
            break
        if len(results) == 2:
            break
    if not results:
        return ""
    name, text = results[0]
    if text.startswith((REFUSED_REPEAT, REFUSED_WRITE)):
        return name
    failed = [tool for tool, content in results if content.startswith("ERROR")]
    return name if len(failed) == 2 and failed[0] == failed[1] else ""


def _tool_name(tool: dict[str, Any]) -> str:
    return str(tool.get("function", tool)["name"])


def _since_task(messages: Sequence[Message]) -> list[Message]:
    """The messages after the last user message that is not a `[system]` nudge, newest first."""
    recent: list[Message] = []
    for message in reversed(messages):
        content = message.get("content", "")
        if message["role"] == "user" and not (
            content.startswith("[system]") and "\n\n" not in content
        ):
            break
        recent.append(message)
    return recent


def _answered_since_task(messages: Sequence[Message], by_model: bool = False) -> bool:
    """A tool result came since the task arrived.
    `by_model`: count only calls the model made, not rift's reads before its first step."""
    return any(
        m["role"] == "tool" and not (by_model and m.get("tool_call_id", "").startswith(PREREAD_ID))
        for m in _since_task(messages)
    )


def _changed_since_task(messages: Sequence[Message]) -> bool:
    """A write or edit of the model's succeeded since the task arrived."""
    return any(
        m["role"] == "tool"
        and m.get("tool_name") in ("write", "edit")
        and not m.get("content", "").startswith("ERROR")
        for m in _since_task(messages)
    )


def _read_paths(messages: Sequence[Message]) -> list[str]:
    """Paths `read` returned without an error, first read first."""
    failed = {
        m.get("tool_call_id")
        for m in messages
        if m["role"] == "tool" and m.get("content", "").startswith("ERROR")
    }
    paths: list[str] = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            path = (call["function"].get("arguments") or {}).get("path")
            is_read = call["function"]["name"] == "read" and call.get("id") not in failed
            if is_read and isinstance(path, str) and path and path not in paths:
                paths.append(path)
    return paths


def _path_enum(tool: dict[str, Any], paths: list[str]) -> dict[str, Any]:
    narrowed = copy.deepcopy(tool)
    params = narrowed.get("function", narrowed).setdefault("parameters", {})
    params.setdefault("properties", {})["path"] = {"type": "string", "enum": paths}
    return narrowed


def tool_names_schema(tools: list[dict[str, Any]], final: bool = True) -> dict[str, Any]:
    """The looser schema (`name` from an enum, any `arguments` object), a fallback
    for parameter schemas the grammar converter cannot handle."""
    names = [tool.get("function", tool)["name"] for tool in tools]
    names += [FINAL_ANSWER] if final or not names else []
    return {
        "type": "object",
        "properties": {"name": {"enum": names}, "arguments": {"type": "object"}},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }


# ------------------------------------------------------------------ parsing


def parse_reply(text: str) -> tuple[str, list[ToolCall]]:
    """Split a model's text into (reply content, tool calls), leniently: from `<tool_call>`
    tags, ```json fences, the whole text as JSON or its outermost `{...}`, the first source
    that yields a call winning. A `final_answer` object becomes content."""
    for pattern in (_TAGGED, _FENCED):
        calls, answers, rest = _from_blocks(text, pattern)
        if calls or answers:
            return _join(answers, rest), calls
    stripped = text.strip()
    for candidate in (stripped, _outer_braces(stripped)):
        if not candidate:
            continue
        calls, answers = _interpret(_loads(candidate))
        if calls or answers:
            rest = stripped.replace(candidate, "", 1).strip()
            return _join(answers, rest), calls
    return text, []


def _from_blocks(text: str, pattern: re.Pattern[str]) -> tuple[list[ToolCall], list[str], str]:
    calls: list[ToolCall] = []
    answers: list[str] = []
    kept: list[str] = []
    last = 0
    for match in pattern.finditer(text):
        found, said = _interpret(_loads(match.group(1).strip()))
        if not found and not said:
            continue
        calls += found
        answers += said
        kept.append(text[last : match.start()])
        last = match.end()
    kept.append(text[last:])
    return calls, answers, "".join(kept).strip()


def _join(answers: list[str], rest: str) -> str:
    return "\n\n".join(part for part in [*answers, rest] if part)


def _outer_braces(text: str) -> str:
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else ""


def _loads(text: str) -> Any:
    """JSON, allowing raw control characters in strings (the grammar admits raw newlines)."""
    try:
        return json.loads(text, strict=False)
    except json.JSONDecodeError:
        return None


def _interpret(data: Any) -> tuple[list[ToolCall], list[str]]:
    """Tool calls and final answers in decoded JSON (one object or a list of them)."""
    items = data if isinstance(data, list) else [data]
    calls: list[ToolCall] = []
    answers: list[str] = []
    for item in items:
        parsed = _as_call(item)
        if parsed is None:
            return [], []
        if parsed.name == FINAL_ANSWER:
            text = (parsed.arguments or {}).get("text", "")
            answers.append(text if isinstance(text, str) else json.dumps(text))
        else:
            calls.append(parsed)
    return calls, answers


def _as_call(item: Any) -> ToolCall | None:
    """`{"name": str, "arguments": object-or-JSON-string}`; `parameters` and a nested
    `function` are accepted too (models trained on other formats write them)."""
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("function"), dict):
        item = item["function"]
    name = item.get("name")
    if not isinstance(name, str) or not name:
        return None
    if "arguments" not in item and "parameters" not in item:
        return None
    args = item.get("arguments", item.get("parameters"))
    if isinstance(args, str):
        decoded = _loads(args)
        if not isinstance(decoded, dict):
            return ToolCall(id=None, name=name, arguments=None, raw_arguments=args)
        args = decoded
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return ToolCall(id=None, name=name, arguments=None, raw_arguments=json.dumps(args))
    return ToolCall(id=None, name=name, arguments=args)


# ------------------------------------------------------------ streaming text


class FinalAnswerStream:
    """Decodes `arguments.text` of a `final_answer` while its JSON is still growing: fed
    the whole output so far, it returns the newly decodable reply text, decoding escapes
    only once complete, so no half escape is ever shown."""

    def __init__(self) -> None:
        self.shown = ""
        self.active = False

    def feed(self, output: str) -> str:
        match = _FINAL_PREFIX.match(output)
        if match is None:
            return ""
        self.active = True
        decoded = _decode_partial(output[match.end() :])
        if not decoded.startswith(self.shown):
            return ""
        delta = decoded[len(self.shown) :]
        self.shown = decoded
        return delta


def _decode_partial(body: str) -> str:
    """The JSON string body decoded up to its closing quote or its last complete char."""
    i = 0
    while i < len(body) and body[i] != '"':
        step = _escape_length(body, i) if body[i] == "\\" else 1
        if step == 0:
            break
        i += step
    try:
        value = json.loads('"' + body[:i] + '"', strict=False)
    except json.JSONDecodeError:
        return ""
    return value if isinstance(value, str) else ""


def _escape_length(body: str, i: int) -> int:
    """Length of the complete escape at `i`, or 0 while it (or its surrogate pair) is cut."""
    if i + 1 >= len(body):
        return 0
    if body[i + 1] != "u":
        return 2
    digits = body[i + 2 : i + 6]
    if len(digits) < 4 or not set(digits) <= _HEX:
        return 0 if len(digits) < 4 else 2
    if 0xD800 <= int(digits, 16) <= 0xDBFF:  # a high surrogate needs its low half
        low = body[i + 6 : i + 12]
        return 12 if len(low) == 6 and low.startswith("\\u") else 0
    return 6

"""A stored conversation as the events its live turns emitted, for resumed sessions.

A face renders these exactly as a live turn, so a replayed tool call has its arguments,
result, diff and plan. Each prompt comes first as a `Prompt` (live turns have no event
for it). What the messages do not keep is not invented: a replayed `EditDiff` is the
edit's own `old_string` → `new_string`, and no `Done` is replayed.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import takewhile
from typing import Any

from msgspec import Struct

from rift.core.permissions.hunks import changed_lines, diff_region, preview_diff
from rift.core.sessions.store import prompt_text
from rift.events import (
    EDIT_DIFF_LINES,
    RESULT_OUTPUT_CAP,
    Content,
    EditDiff,
    Event,
    Plan,
    PlanItem,
    Thinking,
    ToolResult,
    ToolStart,
)
from rift.models.base import Message
from rift.text.patterns import lazy

_PLAN_LINE = lazy(r"^\[( |x)\] \d+\. (.*)$")


class Prompt(Struct, frozen=True):
    """A person's prompt that started a replayed turn (not a protocol event)."""

    text: str


def replay(messages: list[Message]) -> list[Prompt | Event]:
    """The conversation's prompts and the events its turns emitted, in order."""
    out: list[Prompt | Event] = []
    for n, message in enumerate(messages):
        role = message.get("role")
        if role == "user":
            text = prompt_text(message)
            if text is not None:
                out.append(Prompt(text))
        elif role == "assistant":
            out.extend(_assistant(message, _results_after(messages, n)))
    return out


def _results_after(messages: list[Message], n: int) -> list[Message | None]:
    """The tool results answering message n's calls, one per call (None: never ran): by id,
    then those without a matching id (a model that gave none) in order."""
    calls = messages[n].get("tool_calls", [])
    following = list(takewhile(lambda m: m.get("role") == "tool", messages[n + 1 :]))
    by_id = {m.get("tool_call_id"): m for m in following if m.get("tool_call_id")}
    paired: list[Message | None] = [
        by_id.pop(c.get("id"), None) if c.get("id") else None for c in calls
    ]
    spare = [m for m in following if not any(m is p for p in paired)]
    return [p if p is not None else (spare.pop(0) if spare else None) for p in paired]


def _assistant(message: Message, results: list[Message | None]) -> Iterator[Event]:
    if message.get("thinking"):
        yield Thinking(message["thinking"])
    if message.get("content", "").strip():
        yield Content(message["content"])
    for call, result in zip(message.get("tool_calls", []), results, strict=True):
        function = call.get("function", {})
        tool = str(function.get("name", ""))
        args = function.get("arguments")
        args = args if isinstance(args, dict) else {}
        call_id = call.get("id", "")
        yield ToolStart(tool=tool, args=args, id=call_id)
        if result is None:
            continue  # the turn was cut short before this call ran
        text = result.get("content", "")
        ok = not text.startswith("ERROR:")
        yield ToolResult(
            tool=tool, ok=ok, preview=text[:200], id=call_id, output=text[:RESULT_OUTPUT_CAP]
        )
        if ok:
            yield from _aftermath(tool, args, text)


def _aftermath(tool: str, args: dict[str, Any], text: str) -> Iterator[Event]:
    """The events a successful call emitted after its result: the diff, the plan."""
    path = args.get("path")
    if tool == "edit" and isinstance(path, str):
        old, new = args.get("old_string"), args.get("new_string")
        if isinstance(old, str) and isinstance(new, str):
            yield _diff(path, old, new)
    elif tool == "write" and isinstance(path, str) and isinstance(args.get("content"), str):
        yield _diff(path, "", args["content"])
    elif tool == "plan":
        items = [
            PlanItem(text=m.group(2), done=m.group(1) == "x")
            for line in text.splitlines()
            if (m := _PLAN_LINE().match(line))
        ]
        yield Plan(items=items)


def _diff(path: str, old: str, new: str) -> EditDiff:
    lines = [line for line in preview_diff(old, new, EDIT_DIFF_LINES) if not line.startswith("@@")]
    added, removed = changed_lines(old, new)  # as the live turn counts, not the trimmed preview
    region = diff_region(old, new, EDIT_DIFF_LINES)
    return EditDiff(path=path, added=added, removed=removed, diff=lines, region=region)

"""Repairs for the ways local models get tool calling wrong.

Small models leak chat-template tokens, write a tool call as JSON in their
reply instead of calling the tool, forget call ids, describe a change instead
of making it, and loop on the same failing call. Each repair here is a pure
function so the turn loop can stay a plain sequence of steps.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

from rift.models.base import ToolCall
from rift.models.repetition import repeating_period
from rift.text.patterns import lazy

_TEMPLATE_TOKEN = lazy(r"<\|[^<>|\n]{0,48}\|>")
_FENCE = lazy(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?```$", re.DOTALL)
APPLY_NUDGE = (
    "[system] You have not changed any project files this turn. If the task needs a change, "
    "make it now with the tools (edit, write or bash) instead of describing it; otherwise "
    "give your final answer."
)
APPLY_NUDGE_NOTICE = "the reply described a change without making it: asking the model to apply it"
STUCK_NUDGE = (
    "[system] Several tool calls in a row have failed. Stop repeating them: re-read the "
    "relevant file, check the path, or take a different approach."
)
WRAP_UP_WARNING = (
    "[system] You have 2 iterations left in this turn. Finish the change now; the last "
    "iteration has no tools, so use it for a short summary of what is done and what is left."
)


def strip_template_tokens(text: str) -> tuple[str, bool]:
    """Remove leaked `<|...|>` tokens; the flag says whether any were found.

    Called on every streamed delta, so text without a `<|` skips the regex.
    """
    if "<|" not in text:
        return text, False
    cleaned = _TEMPLATE_TOKEN().sub("", text)
    return cleaned, cleaned != text


def recover_textual_tool_calls(content: str, known: Collection[str]) -> list[ToolCall]:
    """Tool calls a model wrote as JSON text (optionally fenced) naming a known tool."""
    text = content.strip()
    fenced = _FENCE().match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text or text[0] not in "[{":
        return []
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return []
    items = data if isinstance(data, list) else [data]
    calls: list[ToolCall] = []
    for item in items:
        call = _as_call(item, known)
        if call is None:
            return []
        calls.append(call)
    return calls


def _as_call(item: Any, known: Collection[str]) -> ToolCall | None:
    if not isinstance(item, dict):
        return None
    name = item.get("name")
    args = item.get("arguments", item.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return None
    if not isinstance(name, str) or name not in known or not isinstance(args, dict):
        return None
    return ToolCall(id=None, name=name, arguments=args)


class RepeatGuard:
    """Counts identical calls (same tool, same arguments) for the doom-loop guard."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def count(self, name: str, arguments: dict[str, Any]) -> int:
        """Record one more call and return how many identical ones there have been."""
        key = f"{name}\x00{json.dumps(arguments, sort_keys=True, ensure_ascii=False)}"
        self._seen[key] = self._seen.get(key, 0) + 1
        return self._seen[key]


REPEAT_REFUSAL = (
    "repeated identical tool call refused; the result will not change. Do not make this call "
    "again: use the result you already have (make the change with edit, or give your final "
    "answer), or do something different."
)
"""Its first words are how the embedded provider spots the refusal (models/embedded_calls.py)."""


def repeat_warning(name: str) -> str:
    return f"tool '{name}' called 3x with identical arguments; refusing the repeat"


_KEY = lazy(r'"([A-Za-z_][A-Za-z0-9_]{0,40})"\s*:')


def bad_arguments(name: str, raw: str) -> str:
    """The error for arguments that are not a JSON object: a summary, never the text itself.

    Echoing the broken text back invites the model to write it somewhere (seen:
    a junk file holding a runaway generation), and costs its length in prompt
    tokens on every later call.
    """
    keys = list(dict.fromkeys(_KEY().findall(raw)))[:6]
    if repeating_period(raw):
        why = "it repeats the same text over and over, so it was cut off"
    elif raw.count("{") > raw.count("}") or raw.count('"') % 2:
        why = "it was cut off before the JSON closed"
    else:
        why = "it is not valid JSON"
    seen = f"; keys seen: {', '.join(keys)}" if keys else ""
    return (
        f"the arguments for {name} are not valid JSON ({len(raw):,} characters; {why}{seen})."
        " Send one short, complete JSON object; to change a file, prefer edit with a small"
        " old_string over rewriting it."
    )


def unknown_tool(name: str, available: Collection[str]) -> str:
    return f"unknown tool '{name}'. Available tools: " + ", ".join(available)

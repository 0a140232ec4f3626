"""How a tool call reads on a screen: `describe_call(tool, args)`, for every face.

Each tool declares its kind, whether it asks, and how to summarise a call, so every
face says the same thing about a call and keeps no table of tool names. An MCP or
plugin tool gets kind "other", no ask, and its first string argument as the summary.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from rift.tools import tool as registered_tool
from rift.tools.base import ToolKind, first_text

__all__ = ["CallDescription", "describe_call"]


class CallDescription(Struct, frozen=True):
    """One tool call, as a face shows it."""

    kind: ToolKind
    """What the call does (read, edit, execute, ...; ACP's tool kinds)."""
    asks: bool
    """The call may wait for the person's approval before it runs."""
    summary: str
    """Its salient argument on one line (`notes.txt`, `pytest -q`); "" when none.
    Faces clip it to their width."""
    title: str
    """A short sentence for a face that shows no tool name ("Read notes.txt")."""


def describe_call(tool: str, args: dict[str, Any]) -> CallDescription:
    """The declared description of a call of `tool` with `args` (the model's arguments);
    only the declaring tool's module is imported."""
    try:
        declared = registered_tool(tool)
    except KeyError:
        return CallDescription("other", False, _one_line(first_text(args)), tool)
    title = declared.title(args) if declared.title is not None else tool
    return CallDescription(
        declared.kind, declared.asks, _one_line(declared.summary(args)), _one_line(title)
    )


def _one_line(text: str) -> str:
    """Newlines shown as ⏎, so a multi-line command stays one row."""
    return " ⏎ ".join(line.strip() for line in text.strip().splitlines())

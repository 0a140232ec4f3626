"""What a resumed session tells the model about the files it already worked on.

A small model re-reads every file it is unsure of, and a compacted history may no longer
show which files were touched: one line before the first prompt after a resume names
them, and warns that the changed ones may differ from what the history shows.
"""

from __future__ import annotations

from rift.core.sessions.store import RESUME_NOTE_START
from rift.models.base import Message

READ_TOOLS = frozenset({"read", "outline"})
WRITE_TOOLS = frozenset({"write", "edit"})
MAX_NAMED = 20
"""Paths named per list; a longer list ends with a count."""


def _paths(messages: list[Message]) -> tuple[list[str], list[str]]:
    read: dict[str, None] = {}
    changed: dict[str, None] = {}
    for message in messages:
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            name = function.get("name")
            args = function.get("arguments")
            path = args.get("path") if isinstance(args, dict) else None
            if not isinstance(path, str) or not path:
                continue
            if name in WRITE_TOOLS:
                changed[path] = None
            elif name in READ_TOOLS:
                read[path] = None
    return [p for p in read if p not in changed], list(changed)


def _listing(paths: list[str]) -> str:
    named = ", ".join(paths[:MAX_NAMED])
    more = len(paths) - MAX_NAMED
    return named + (f" and {more} more" if more > 0 else "")


def resume_note(messages: list[Message]) -> str:
    """The note for the first prompt after a resume; "" when the session touched no file."""
    read, changed = _paths(messages)
    if not read and not changed:
        return ""
    parts = [RESUME_NOTE_START]
    if changed:
        parts.append(f"Files this session changed: {_listing(changed)}.")
    if read:
        parts.append(f"Files it read: {_listing(read)}.")
    parts.append("They may have changed since; read a file again before editing it.]")
    return " ".join(parts) + "\n\n"

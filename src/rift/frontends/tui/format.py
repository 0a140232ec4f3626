"""Pure text helpers for the TUI: tool rows, the context gauge, token rates.

Kept free of Textual so they are cheap to test and to import; the widgets
turn these strings into styled Rich text.
"""

from __future__ import annotations

import json
from typing import Any

SALIENT_KEYS = ("command", "pattern", "path", "name", "action", "query", "url", "file")
GAUGE_AMBER = 60
GAUGE_RED = 84


def salient(tool: str, args: dict[str, Any], width: int = 80) -> str:
    """The one argument that says what a tool call does, first (`bash python3 x.py`)."""
    if tool == "plan":
        steps = args.get("set")
        if isinstance(steps, list):
            return f"{len(steps)} steps"
        if args.get("done") is not None:
            return f"done {args['done']}"
    if tool == "agent" and isinstance(args.get("tasks"), list):
        return f"{len(args['tasks'])} sub-agent(s)"
    for key in SALIENT_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return clip(value.strip().replace("\n", " ⏎ "), width)
    if not args:
        return ""
    return clip(json.dumps(args, ensure_ascii=False), width)


def result_line(preview: str, width: int = 80) -> str:
    """The first meaningful line of a tool result preview."""
    for line in preview.splitlines():
        if line.strip():
            return clip(line.strip(), width)
    return "(no output)"


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def short_tokens(n: int) -> str:
    """`13k` style: thousands floored, small numbers as they are."""
    return f"{n // 1000}k" if n >= 1000 else str(n)


def gauge(used: int, limit: int) -> tuple[str, str]:
    """(`ctx 42% 13k/32k`, level) where level is green, amber or red."""
    pct = round(used * 100 / limit) if limit > 0 else 0
    level = "green" if pct < GAUGE_AMBER else "amber" if pct <= GAUGE_RED else "red"
    return f"ctx {pct}% {short_tokens(used)}/{short_tokens(limit)}", level


def estimate_tokens(text: str) -> int:
    """The core's rough count (UTF-8 bytes / 4), for the live rate."""
    return len(text.encode("utf-8")) // 4


class RateMeter:
    """Live tokens per second over the streamed text of the current turn."""

    def __init__(self) -> None:
        self.tokens = 0
        self.started: float | None = None
        self.last: float | None = None

    def add(self, text: str, now: float) -> None:
        if self.started is None:
            self.started = now
        self.tokens += estimate_tokens(text)
        self.last = now

    def rate(self) -> float:
        if self.started is None or self.last is None or self.last - self.started < 0.2:
            return 0.0
        return self.tokens / (self.last - self.started)

    def reset(self) -> None:
        self.tokens, self.started, self.last = 0, None, None

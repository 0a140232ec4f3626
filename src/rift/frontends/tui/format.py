"""Pure text helpers for the TUI: tool results, the context gauge, token rates.

Kept free of Textual so they are cheap to test and to import."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from rift.events import PrefillProgress

GAUGE_AMBER = 60
GAUGE_RED = 84
MIN_RATE_SECONDS = 0.01
"""Below this much generation time a tokens-per-second figure is noise (10 M tok/s)."""
_CTX = re.compile(r"(\d+)\s*(k|K)?")


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


class RateMeter:
    """Live tokens per second over the streamed text of the current turn."""

    def __init__(self) -> None:
        self.tokens = 0
        self.started: float | None = None
        self.last: float | None = None

    def add(self, text: str, now: float) -> None:
        if self.started is None:
            self.started = now
        self.tokens += len(text.encode("utf-8")) // 4  # the core's rough count
        self.last = now

    def rate(self) -> float:
        if self.started is None or self.last is None or self.last - self.started < 0.2:
            return 0.0
        return self.tokens / (self.last - self.started)

    def reset(self) -> None:
        self.tokens, self.started, self.last = 0, None, None


def rate_to_show(tokens_per_sec: float, output_tokens: int) -> float:
    """The turn's rate, or 0.0 (not shown) when it was measured over almost no time."""
    too_short = tokens_per_sec <= 0 or output_tokens / tokens_per_sec < MIN_RATE_SECONDS
    return 0.0 if too_short else tokens_per_sec


def parse_num_ctx(text: str) -> int | None:
    """`/ctx` sizes: `16384`, `16_384`, or `16k` (= 16384, as context sizes are counted)."""
    match = _CTX.fullmatch(text.strip().replace("_", ""))
    return None if match is None else int(match.group(1)) * (1024 if match.group(2) else 1)


def host_problem(url: str) -> str | None:
    """Why `url` cannot be a model server address, in one line (not a traceback from deep
    in the HTTP client); None when it can."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"invalid host URL {url!r}: {exc}"
    if parts.scheme not in ("http", "https"):
        return f"invalid host URL {url!r}: it must start with http:// or https://"
    if not parts.hostname:
        return f"invalid host URL {url!r}: no host name"
    if port == 0:
        return f"invalid host URL {url!r}: port 0"
    return None


def prefill_line(event: PrefillProgress) -> str:
    """`reading the prompt 45% · 1,842 of 4,096 tokens (512 cached) · 1,790 tok/s`."""
    percent = 100 * event.processed // event.total if event.total > 0 else 0
    cached = f" ({event.cached:,} cached)" if event.cached else ""
    speed = f" · {event.tokens_per_sec:,.0f} tok/s" if event.tokens_per_sec else ""
    return (
        f"reading the prompt {percent}% · {event.processed:,} of {event.total:,} tokens"
        f"{cached}{speed}"
    )

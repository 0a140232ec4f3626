"""Where one turn's seconds went: prefill, decode, cache and tools.

A local model's user waits on the model, not on rift: a cache miss at 8k tokens
costs minutes on two cores. `TurnClock` sums what each request's `Usage` says
(llama-server's `timings`, Ollama's durations, the embedded runtime's counters)
and the seconds tools ran, so `done.stats`, `-p --output-format json` and
`/stats` can say where the time went.
"""

from __future__ import annotations

from rift.models.base import Usage


class TurnClock:
    """Per-turn totals; every figure is 0 when the server did not report it."""

    __slots__ = (
        "_cached",
        "_decode_s",
        "_decode_tokens",
        "_prefill_s",
        "_prefill_tokens",
        "_requests",
        "_tool_s",
    )

    def __init__(self) -> None:
        self._requests = self._prefill_tokens = self._decode_tokens = self._cached = 0
        self._prefill_s = self._decode_s = self._tool_s = 0.0

    def add_usage(self, usage: Usage) -> None:
        """Count one model request's reported figures."""
        self._requests += 1
        self._prefill_tokens += usage.prefill_tokens
        self._prefill_s += usage.prefill_s
        self._decode_tokens += usage.output_tokens
        self._decode_s += usage.eval_duration_s
        self._cached += usage.cached_tokens

    def add_tool_seconds(self, seconds: float) -> None:
        """Count the wall time of one tool run."""
        self._tool_s += max(seconds, 0.0)

    def figures(self) -> dict[str, int]:
        """The totals under `TurnStats`' field names (durations in whole milliseconds)."""
        return {
            "requests": self._requests,
            "prefill_tokens": self._prefill_tokens,
            "prefill_ms": round(self._prefill_s * 1000),
            "decode_tokens": self._decode_tokens,
            "decode_ms": round(self._decode_s * 1000),
            "cached_tokens": self._cached,
            "tool_ms": round(self._tool_s * 1000),
        }

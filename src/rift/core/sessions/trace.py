"""`--trace FILE`: one JSON line per turn, for comparing models and prompts offline.
Appended, never rewritten, in one stable shape; failing to write is a warning only.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from rift.events import TurnStats

FAILURE_KEYS = (
    "truncations",
    "template_strips",
    "textual_recoveries",
    "apply_nudges",
    "doom_loop_trips",
    "tool_errors",
    "unknown_tools",
    "alias_hits",
    "compact_prunes",
    "compact_summaries",
    "wrap_ups",
    "greedy_retries",
)


def trace_record(
    *,
    model: str,
    provider: str,
    num_ctx: int,
    prompt: str,
    outcome: str,
    stats: TurnStats,
    tools: list[tuple[str, bool, str]],
    counters: Counter[str],
) -> dict[str, Any]:
    return {
        "ts": int(time.time()),
        "model": model,
        "provider": provider,
        "num_ctx": num_ctx,
        "prompt": prompt[:240],
        "outcome": outcome,
        "iterations": stats.iterations,
        "prompt_tokens": stats.prompt_tokens,
        "billed_prompt_tokens": stats.billed_prompt_tokens,
        "output_tokens": stats.output_tokens,
        "duration_ms": stats.duration_ms,
        "tools": [{"name": n, "ok": ok, "target": t} for n, ok, t in tools],
        "failures": {key: counters.get(key, 0) for key in FAILURE_KEYS},
    }


def append_trace(path: Path, record: dict[str, Any]) -> None:
    """Append one line; raises OSError for the caller to report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")

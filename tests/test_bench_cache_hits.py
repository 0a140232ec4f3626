"""bench/cache_hits.py's measures, on request bodies and a recorded llama.cpp stream."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "bench" / "cache_hits.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_cache_hits", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_prefix_kept_is_the_share_repeated_byte_for_byte() -> None:
    bench = _bench()
    tools = [{"type": "function", "function": {"name": "read"}}]
    first = {"tools": tools, "messages": [{"role": "system", "content": "s"}]}
    second = {"tools": tools, "messages": [*first["messages"], {"role": "user", "content": "u"}]}
    kept = bench.prefix_kept(bench.prompt_text(first), bench.prompt_text(second))
    assert kept == len(bench.prompt_text(first)) / len(bench.prompt_text(second))
    changed = {"tools": tools, "messages": [{"role": "system", "content": "S"}]}
    text = bench.prompt_text(changed)
    assert bench.prefix_kept(bench.prompt_text(first), text) == (text.index('"S"') + 1) / len(text)


def test_timings_come_from_the_last_chunk_that_has_them() -> None:
    chunks = [
        {"choices": [{"delta": {"content": "hi"}}]},
        {"choices": [], "timings": {"cache_n": 900, "prompt_n": 40}},
    ]
    stream = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    assert _bench()._timings(stream.encode()) == {"cache_n": 900, "prompt_n": 40}

"""Where a turn's time went: `-p --output-format json` carries prefill, decode, cache,
tool and request figures taken from the server's own reports (issue 45)."""

from __future__ import annotations

from typing import Any

SLEEP = {"name": "bash", "arguments": {"command": "sleep 0.3"}}


def _turns(first: dict[str, Any], second: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"tool_calls": [SLEEP], "usage": {"prompt_tokens": 900, "output_tokens": 20}, **first},
        {"content": "done", "usage": {"prompt_tokens": 960, "output_tokens": 5}, **second},
    ]


def test_json_stats_sum_llama_server_timings(harness: Any) -> None:
    server = harness.server(
        _turns(
            {
                "timings": {
                    "prompt_n": 900,
                    "prompt_ms": 4500.0,
                    "cache_n": 0,
                    "predicted_n": 20,
                    "predicted_ms": 1250.0,
                }
            },
            {
                "timings": {
                    "prompt_n": 60,
                    "prompt_ms": 310.5,
                    "cache_n": 900,
                    "predicted_n": 5,
                    "predicted_ms": 300.0,
                }
            },
        )
    )
    run = harness.run("sleep a bit", server, openai=True)
    assert run.code == 0, run.describe()
    stats = run.result["stats"]
    assert stats["requests"] == 2
    assert stats["prefill_tokens"] == 960
    assert stats["prefill_ms"] == 4810  # 4500 + 310.5, rounded
    assert stats["cached_tokens"] == 900
    assert stats["decode_tokens"] == 25
    assert stats["decode_ms"] == 1550
    assert 300 <= stats["tool_ms"] < stats["duration_ms"]


def test_json_stats_read_ollama_durations(harness: Any) -> None:
    server = harness.server(
        _turns(
            {
                "timings": {"prompt_ms": 2000.0},
                "usage": {"prompt_tokens": 900, "output_tokens": 20, "eval_duration_s": 1.0},
            },
            {
                "timings": {"prompt_ms": 100.0},
                "usage": {"prompt_tokens": 60, "output_tokens": 5, "eval_duration_s": 0.25},
            },
        )
    )
    run = harness.run("sleep a bit", server)
    assert run.code == 0, run.describe()
    stats = run.result["stats"]
    assert (stats["requests"], stats["prefill_tokens"], stats["prefill_ms"]) == (2, 960, 2100)
    assert (stats["decode_tokens"], stats["decode_ms"], stats["cached_tokens"]) == (25, 1250, 0)
    assert stats["tool_ms"] >= 300

"""`--trace FILE` appends one JSON line per turn with outcome, tools and counters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rift_bin import run_rift


def test_trace_line_per_turn(project: Path, fake_server: Any, tmp_path: Path) -> None:
    (project / "a.txt").write_text("hello\n")
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
                {"content": "<|im_end|>it says hello"},
            ]
        }
    )
    trace = tmp_path / "trace.jsonl"
    result = run_rift(
        ["--host", server.url, "-m", "fake-model", "-p", "what is in a.txt", "--trace", str(trace)],
        project,
    )
    assert result.returncode == 0, result.stderr
    (line,) = trace.read_text().splitlines()
    record = json.loads(line)
    assert record["outcome"] == "answered" and record["iterations"] == 2
    assert record["tools"] == [{"name": "read", "ok": True, "target": "a.txt"}]
    assert record["failures"]["alias_hits"] == 1
    assert record["failures"]["template_strips"] == 1
    assert record["prompt"] == "what is in a.txt" and record["model"] == "fake-model"

"""What a headless race shows: activity on stderr, then the table and verdict on stdout.

    [1-qwen3-8b] → edit calc.py
    ...
    candidate     outcome   tests     patch    time   tokens in/out
    0-qwen3-8b    answered  FAIL 1/2  312 B    41.0s  10234/311
  * 1-qwen3-8b    answered  pass 2/2  298 B    38.2s  9876/280
    JUDGE: winner=1-qwen3-8b

`JUDGE: winner=<name>` (or `winner=none`) is the line scripts read; `--output-format
json` prints one object instead of the table.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from rift.events import Event, Info, SubagentActivity, SubagentStarted, Warning
from rift.swarm.candidates import CandidateResult
from rift.swarm.race import RaceOutcome


class ActivityPrinter:
    """The race's events as lines on stderr, each candidate's tagged with its name."""

    def __init__(self, err: TextIO = sys.stderr) -> None:
        self.err = err

    def __call__(self, event: Event) -> None:
        if isinstance(event, SubagentStarted):
            self._line(f"[{event.tag}] started: {event.label}")
        elif isinstance(event, SubagentActivity):
            self._line(f"[{event.tag}] {event.text}")
        elif isinstance(event, Warning):
            self._line(f"warning: {event.text}")
        elif isinstance(event, Info):
            self._line(event.text)

    def _line(self, text: str) -> None:
        self.err.write(text.rstrip() + "\n")
        self.err.flush()


def judge_line(outcome: RaceOutcome) -> str:
    return f"JUDGE: winner={outcome.winner or 'none'}"


def table(outcome: RaceOutcome) -> str:
    """The candidates, one row each, the winner starred."""
    header = ("candidate", "outcome", "tests", "patch", "time", "tokens in/out")
    rows = [header] + [_row(r) for r in outcome.results]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = []
    for index, row in enumerate(rows):
        star = "*" if index and outcome.results[index - 1].name == outcome.winner else " "
        cells = "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row))
        lines.append(f"{star} {cells}".rstrip())
    return "\n".join(lines)


def _row(result: CandidateResult) -> tuple[str, ...]:
    tests = result.tests.describe() if result.tests is not None else "-"
    patch = f"{result.patch_bytes} B" if result.patch_bytes else "none"
    tokens = f"{result.prompt_tokens}/{result.output_tokens}"
    return (result.name, result.outcome, tests, patch, f"{result.seconds:.1f}s", tokens)


def as_json(outcome: RaceOutcome) -> dict[str, Any]:
    """The whole race as one JSON-ready object (`--output-format json`)."""
    return {
        "winner": outcome.winner,
        "judged_by": outcome.judged_by,
        "note": outcome.note,
        "commit": outcome.commit,
        "test_command": outcome.test_command,
        "candidates": [_candidate(r) for r in outcome.results],
    }


def _candidate(result: CandidateResult) -> dict[str, Any]:
    tests = result.tests
    return {
        "name": result.name,
        "model": result.spec.model,
        "temperature": result.spec.temperature,
        "outcome": result.outcome,
        "reason": result.reason,
        "patch": str(result.patch) if result.patch else None,
        "patch_bytes": result.patch_bytes,
        "seconds": round(result.seconds, 2),
        "steps": result.steps,
        "prompt_tokens": result.prompt_tokens,
        "output_tokens": result.output_tokens,
        "tests": None
        if tests is None
        else {
            "exit_code": tests.exit_code,
            "passed": tests.passed,
            "failed": tests.failed,
            "seconds": round(tests.seconds, 2),
        },
    }

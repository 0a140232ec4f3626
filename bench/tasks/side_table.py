"""The side-by-side table both benchmarks print: one column per agent, plain text.

Why plain fixed-width text: it is pasted into the README inside a code block
and read in a terminal, and it must stay readable when a run is cut short
(it is rewritten after every task).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

Results = list[dict[str, Any]]
Row = tuple[str, Callable[[Results], str]]
LABEL = 24
CELL = 16


def passed(key: str) -> Callable[[Results], str]:
    return lambda rs: f"{sum(bool(r[key]) for r in rs)}/{len(rs)}"


def total(key: str, fmt: str = "{:,}") -> Callable[[Results], str]:
    return lambda rs: fmt.format(sum(r[key] for r in rs))


def median(key: str) -> Callable[[Results], str]:
    return lambda rs: f"{statistics.median(r[key] for r in rs):.1f}" if rs else "-"


def per_task(key: str, fmt: str = "{:.1f}") -> Callable[[Results], str]:
    return lambda rs: fmt.format(sum(r[key] for r in rs) / len(rs)) if rs else "-"


def render(agents: Sequence[str], by_agent: dict[str, Results], rows: Sequence[Row]) -> str:
    """The summary block: a header line of agent names, then one line per row."""
    lines = [" " * LABEL + "".join(f"{a:>{CELL}}" for a in agents)]
    for label, cell in rows:
        cells = "".join(f"{cell(by_agent.get(a, [])):>{CELL}}" for a in agents)
        lines.append(f"{label:<{LABEL}}{cells}")
    return "\n".join(lines)

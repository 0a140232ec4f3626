"""Front ends are adapters: none reaches into the conversation's state (issue 15).

The conversation owner (core/conversation.py) is the one place that decides;
serve, the printer, the TUI and ACP only call it and render its events. A
front end that reads `agent.messages` or pokes `agent.journal` has started to
decide again, which is how the first wave's copies drifted apart.
"""

from __future__ import annotations

import re
from pathlib import Path

FRONTENDS = Path(__file__).resolve().parent.parent / "src" / "rift" / "frontends"
FORBIDDEN = re.compile(r"\bagent\.(messages|journal|binding|ctx)\b")


def test_no_front_end_reaches_into_agent_state() -> None:
    offenders = [
        f"{path.relative_to(FRONTENDS)}:{n}: {line.strip()}"
        for path in sorted(FRONTENDS.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FORBIDDEN.search(line)
    ]
    assert not offenders, "front ends must go through Conversation:\n" + "\n".join(offenders)


def test_the_check_would_catch_an_offender() -> None:
    assert FORBIDDEN.search("last = self.driver.agent.messages[-1]")
    assert FORBIDDEN.search("agent.journal.undo_last_turn()")
    assert not FORBIDDEN.search("conversation.history()")

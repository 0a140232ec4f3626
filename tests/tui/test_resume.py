"""Resuming a long session: the last message first, older history on demand."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from .conftest import connected, drive, idle, send, transcript_text, until, widget_text

TURNS = 100


def write_long_session(project: Path, turns: int = TURNS) -> Path:
    """A saved session of `turns` user/assistant exchanges with Markdown replies."""
    folder = Path(os.environ["XDG_DATA_HOME"]) / "rift" / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    messages: list[dict[str, Any]] = [{"role": "system", "content": "sys"}]
    for n in range(turns):
        messages.append({"role": "user", "content": f"question {n}"})
        reply = f"Answer **{n}**:\n\n```python\nprint({n})\n```\n\n- point one\n- point two\n"
        messages.append({"role": "assistant", "content": reply})
    path = folder / "long.json"
    path.write_text(
        json.dumps(
            {
                "model": "fake-model",
                "saved_at": int(time.time()),
                "cwd": str(project),
                "messages": messages,
            }
        )
    )
    return path


def _order(app: Any) -> list[str]:
    return [widget_text(w) for w in app.transcript.children]


def test_a_long_session_shows_its_last_message_and_renders_older_ones_lazily(
    tui: Any, project: Path
) -> None:
    write_long_session(project)
    app, _ = tui(continue_last=True)

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        last = f"Answer **{TURNS - 1}**"
        await until(pilot, lambda: last in transcript_text(app), "the last reply")
        assert "› question 0\n" not in transcript_text(app) + "\n"  # not rendered yet
        assert len(app.transcript.children) < 60
        earlier = app.transcript.query_one(".earlier")
        assert "earlier messages" in widget_text(earlier)
        before = app.transcript.earlier_count
        assert before == 2 * TURNS - len(app.transcript.query(".user, .reply"))
        await app.transcript.show_earlier()  # what a click on that line does
        await until(pilot, lambda: app.transcript.earlier_count < before, "a batch")
        order = _order(app)
        oldest = before - app.transcript.earlier_count
        assert oldest > 0
        first = next(i for i, t in enumerate(order) if t.startswith("› question"))
        assert order[first] == f"› question {(before - oldest) // 2}"
        assert order.index(f"› question {TURNS - 1}") > first

    drive(app, scenario)


def test_a_prompt_sent_during_the_replay_lands_at_the_bottom(tui: Any, project: Path) -> None:
    write_long_session(project)
    app, _ = tui([{"content": "Fresh reply."}], continue_last=True)

    async def scenario(pilot: Pilot[Any]) -> None:
        await until(pilot, lambda: "resumed session" in transcript_text(app), "the replay")
        await send(pilot, "new prompt")  # while the history is still being put on screen
        await until(pilot, lambda: "Fresh reply." in transcript_text(app), "the reply")
        await idle(pilot)
        order = _order(app)
        mine = next(i for i, text in enumerate(order) if text == "› new prompt")
        history = [i for i, text in enumerate(order) if text.startswith("Answer **")]
        assert history and mine > max(history)

    drive(app, scenario)

"""/stats says where the session's time went: prefill, cache, decode, tools, requests
(issue 45), summed from the `done` events' stats."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from .conftest import connected, drive, idle, send, transcript_text, until

REPLY = {
    "content": "All good.",
    "usage": {"prompt_tokens": 800, "output_tokens": 40, "eval_duration_s": 2.0},
    "timings": {"prompt_ms": 3500.0},
}


def test_stats_shows_prefill_decode_and_requests(tui: Any) -> None:
    app, _ = tui([REPLY])
    expected = "time: prefill 800 tok in 3.5 s (0 cached) · decode 40 tok in 2.0 s"

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "status?")
        await idle(pilot)
        await send(pilot, "/stats")
        await until(pilot, lambda: expected in transcript_text(app), "the time line")
        assert "· 1 requests" in transcript_text(app)

    drive(app, scenario)

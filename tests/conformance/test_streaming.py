"""Streaming: every delta's text reaches the client, merged where that costs no latency.

The protocol's `content` (and `thinking`) events carry streamed text, not one
model token each: a client concatenates them. rift writes the deltas that one
event-loop step produced as one event, so a fast model server does not cost an
editor one JSON line per token, while a slow one is still shown token by token.
"""

from __future__ import annotations

import time
from typing import Any

from .serve_session import ServeSession

DELTAS = 5000
LONG_WINDOW = 262_144
"""A window the 5,000-delta reply fits twice over, so no runaway bound cuts it."""


def _texts(events: list[dict[str, Any]], name: str) -> list[str]:
    return [e["text"] for e in events if e["event"] == name]


def test_a_fast_stream_arrives_whole_in_fewer_events(fake_server, serve) -> None:
    model = {"name": "fake-model", "capabilities": ["tools"], "context_length": LONG_WINDOW}
    turn = {
        "thinking": [f"t{i} " for i in range(DELTAS)],
        "content_sequence": {"count": DELTAS},
    }
    session: ServeSession = serve(
        fake_server({"models": [model], "turns": [turn]}), "--num-ctx", str(LONG_WINDOW)
    )
    session.prompt("stream")
    events = session.read_until("done", timeout=60)
    streamed = [e["event"] for e in events if e["event"] in ("thinking", "content")]
    assert "".join(_texts(events, "thinking")) == "".join(f"t{i} " for i in range(DELTAS))
    assert "".join(_texts(events, "content")) == "".join(f"w{i} " for i in range(DELTAS))
    assert streamed.index("content") > len(streamed) - 1 - streamed[::-1].index("thinking")
    assert len(streamed) < DELTAS  # 10,000 deltas: merged, not one line each
    assert all(text for text in _texts(events, "content") + _texts(events, "thinking"))


def test_a_slow_stream_is_relayed_delta_by_delta(fake_server, serve) -> None:
    script = {"turns": [{"content": ["first ", "second"], "chunk_delay": 1.0}]}
    session: ServeSession = serve(fake_server(script))
    session.prompt("slowly")
    first = session.expect("content")
    seen = time.monotonic()
    rest = session.read_until("done")
    assert first["text"] == "first "  # not held back until the next delta
    assert _texts(rest, "content") == ["second"]
    assert time.monotonic() - seen > 0.5

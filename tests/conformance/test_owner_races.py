"""The owner's two races, over the wire: work ends when *its own* task has ended.

(a) A client with a queued prompt sends it the moment `model_changed` arrives. The
switch must be over by then: the prompt runs, and a second prompt sent while it runs
is refused with the busy warning (one turn at a time, never two `done`s in flight).
(b) A `rewind` sent while the idle compaction after a turn is summarizing must not
be undone by the summary: the turn the client saw rewound stays gone.
"""

from __future__ import annotations

import json
from pathlib import Path

from .serve_session import ServeSession

BUSY = "turn in progress — cancel it or wait for done"
MODELS = [
    {"name": "fake-model", "capabilities": ["tools"], "context_length": 32768},
    {"name": "other-model", "capabilities": ["tools"], "context_length": 32768},
]


def test_a_prompt_sent_on_model_changed_runs_alone(fake_server, serve) -> None:
    rounds = 6
    turns = [{"match": "warm-up", "content": "warm"}]
    turns += [
        {"match": f"queued {i}", "content": "slow", "delay_first_byte": 0.4} for i in range(rounds)
    ]
    turns += [{"match": f"second {i}", "content": "should not run"} for i in range(rounds)]
    server = fake_server({"models": MODELS, "turns": turns})
    session: ServeSession = serve(server)
    session.prompt("warm-up")
    session.read_until("context")
    for i in range(rounds):
        session.send({"cmd": "set_model", "model": MODELS[(i + 1) % 2]["name"]})
        session.read_until("model_changed")
        session.prompt(f"queued {i}")  # the queued prompt goes out at once
        session.expect("iteration")  # the queued prompt's turn is running
        session.prompt(f"second {i}")
        events = session.read_until("done")
        events += session.read_until("context")
        events += session.drain(0.2)
        names = session.names(events)
        assert names.count("done") == 1, f"round {i}: {names}"
        assert {"event": "warning", "text": BUSY, "code": "busy"} in events, f"round {i}"
    asked = [json.dumps(r["messages"]) for r in server.chat_requests()]
    assert not [a for a in asked if "second " in a]
    assert session.close() == 0


def test_rewind_during_idle_compaction_is_not_undone_by_the_summary(
    fake_server, serve, project
) -> None:
    long_reply = {"content": "here:", "content_sequence": {"count": 3000, "prefix": "w"}}
    server = fake_server(
        {
            "turns": [
                {"match": "Transcript:", "content": "## Goal\nsummary", "delay_first_byte": 1.0},
                {"match": "first question", "content": "first answer"},
                {"match": "second question", **long_reply},
                {"match": "third question", "content": "third answer"},
            ]
        }
    )
    session: ServeSession = serve(server, "--num-ctx", "6000")
    session.prompt("first question")
    session.read_until("context")
    session.prompt("second question")
    session.read_until("done")
    session.expect("info", text="compacting: summarizing earlier conversation…")
    session.send({"cmd": "rewind", "n": 1})  # while the summary is being written
    events = session.read_until("context")
    events += session.drain(1.5)
    rewound = [e for e in events if e["event"] == "info" and e["text"].startswith("rewound 1")]
    refused = [e for e in events if e["event"] == "warning" and e.get("code") == "busy"]
    assert rewound or refused, session.names(events)
    stored = Path(session.events[0]["session"]).read_text(encoding="utf-8")
    session.prompt("third question")
    session.read_until("context")
    asked = json.dumps(server.chat_requests()[-1]["messages"])
    assert "third question" in asked
    assert session.close() == 0
    if rewound:  # what the client was told happened is what the disk and the model hold
        assert "second question" not in stored
        assert "w2999" not in asked

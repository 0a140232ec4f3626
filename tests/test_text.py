"""Lone surrogates are scrubbed where text enters rift (rift/text/hygiene.py), so every string
inside can be encoded: the session saves, the next request goes out, events keep flowing."""

from __future__ import annotations

import json
from pathlib import Path

from rift.core.sessions.loading import load_session
from rift.core.sessions.store import save_session
from rift.text.hygiene import scrub, scrub_json

LONE = json.loads('"a\\ud800b\\udc80c"')  # what a `\ud800` JSON escape decodes to


def test_scrub_replaces_only_lone_surrogates() -> None:
    assert scrub(LONE) == "a\ufffdb\ufffdc"
    assert scrub("plain 🙂 text") == "plain 🙂 text"
    assert scrub(json.loads('"\\ud83d\\ude42"')) == "🙂"  # a proper pair decodes whole


def test_scrub_json_reaches_keys_and_nested_values() -> None:
    value = {LONE: [LONE, 1, {"k": LONE}]}
    clean = scrub_json(value)
    json.dumps(clean, ensure_ascii=False).encode("utf-8")  # no UnicodeEncodeError
    assert clean == {"a\ufffdb\ufffdc": ["a\ufffdb\ufffdc", 1, {"k": "a\ufffdb\ufffdc"}]}
    assert scrub_json({"x": 1}) == {"x": 1}


def test_a_session_holding_a_lone_surrogate_saves_and_loads_clean(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    messages = [{"role": "user", "content": "ls gave caf\udce9.txt"}]
    save_session(path, model="m", cwd=tmp_path, messages=messages)
    loaded = load_session(path)
    assert loaded.messages[-1]["content"] == "ls gave caf\ufffd.txt"

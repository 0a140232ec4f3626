"""Session files on real disk: reserve, save/trim, lenient load, listing, history."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rift.core.sessions.loading import load_session, normalize_tool_call_ids
from rift.core.sessions.store import (
    COMPACTED_PREFIX,
    INTERRUPT_NOTE,
    SessionStore,
    history_for,
    save_session,
    user_turn_count,
)
from rift.events import HistoryMessage
from rift.models.base import Message


def _turn(n: int, *, size: int = 10) -> list[Message]:
    """A user prompt, a tool call with its result, and a final reply."""
    return [
        {"role": "user", "content": f"prompt {n}"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": f"c{n}", "function": {"name": "read", "arguments": {"n": n}}}],
        },
        {"role": "tool", "content": "x" * size, "tool_name": "read", "tool_call_id": f"c{n}"},
        {"role": "assistant", "content": f"reply {n}"},
    ]


def _conversation(turns: int, *, size: int = 10) -> list[Message]:
    messages: list[Message] = [{"role": "system", "content": "you are rift"}]
    for n in range(turns):
        messages += _turn(n, size=size)
    return messages


@pytest.fixture
def sdir(tmp_path: Path) -> Path:
    """A directory of our own: tmp_path also holds the isolated HOME of conftest."""
    path = tmp_path / "sessions"
    path.mkdir()
    return path


def _write(path: Path, doc: Any, mtime: float | None = None) -> None:
    path.write_text(json.dumps(doc), encoding="utf-8")
    if mtime is not None:
        os.utime(path, (mtime, mtime))


# ------------------------------------------------------------------- reserve


def test_reserve_creates_empty_file_named_by_seconds(sdir: Path) -> None:
    store = SessionStore(sdir / "deep" / "sessions")
    before = int(time.time())
    path = store.reserve()
    assert path.exists() and path.stat().st_size == 0
    assert path.parent == sdir / "deep" / "sessions"
    secs = int(path.stem.split("-")[0])
    assert before <= secs <= int(time.time())


def test_reserve_never_reuses_a_taken_name(sdir: Path) -> None:
    store = SessionStore(sdir)
    paths = [store.reserve() for _ in range(5)]
    assert len(set(paths)) == 5
    assert all(p.exists() and p.suffix == ".json" for p in paths)
    first, second = paths[0].stem, paths[1].stem
    if second.split("-")[0] == first:  # same second: the counter form
        assert second == f"{first}-1"


def test_reserve_skips_existing_file_with_same_second(sdir: Path) -> None:
    secs = int(time.time())
    for name in (f"{secs}.json", f"{secs}-1.json", f"{secs + 1}.json", f"{secs + 1}-1.json"):
        (sdir / name).write_text("{}")
    path = SessionStore(sdir).reserve()
    assert path.name in (f"{secs}-2.json", f"{secs + 1}-2.json", f"{secs + 2}.json")
    assert path.read_bytes() == b""


# ------------------------------------------------------------------- newest


def test_newest_skips_zero_byte_files(sdir: Path) -> None:
    now = time.time()
    turn = {"messages": [{"role": "user", "content": "hi"}]}
    _write(sdir / "1.json", turn, now - 100)
    _write(sdir / "2.json", turn, now - 50)
    (sdir / "3.json").touch()
    os.utime(sdir / "3.json", (now, now))
    (sdir / "4.json.corrupt").write_text("junk")
    store = SessionStore(sdir)
    assert store.newest() == sdir / "2.json"


def test_newest_none_when_nothing_saved(sdir: Path) -> None:
    assert SessionStore(sdir / "missing").newest() is None
    SessionStore(sdir).reserve()
    assert SessionStore(sdir).newest() is None


# --------------------------------------------------------------------- save


def test_save_writes_pretty_json_document(sdir: Path) -> None:
    path = sdir / "s.json"
    messages = _conversation(2)
    save_session(path, model="qwen3:8b", cwd=sdir, messages=messages)
    text = path.read_text(encoding="utf-8")
    assert "\n  " in text  # pretty-printed
    doc = json.loads(text)
    assert doc["model"] == "qwen3:8b"
    assert doc["cwd"] == str(sdir)
    assert isinstance(doc["saved_at"], int) and abs(doc["saved_at"] - time.time()) < 5
    assert doc["messages"] == messages


def test_save_leaves_no_temp_file_and_replaces_old(sdir: Path) -> None:
    path = sdir / "s.json"
    path.write_text("old")
    for n in range(3):
        save_session(path, model="m", cwd="/w", messages=_conversation(n + 1))
    assert sorted(p.name for p in sdir.iterdir()) == ["s.json"]
    assert len(json.loads(path.read_text())["messages"]) == 1 + 4 * 3


def test_failed_save_keeps_the_previous_file(sdir: Path) -> None:
    path = sdir / "s.json"
    save_session(path, model="m", cwd="/w", messages=_conversation(1))
    before = path.read_bytes()
    bad: list[Any] = [{"role": "user", "content": object()}]  # not JSON-serializable
    with pytest.raises(TypeError):
        save_session(path, model="m", cwd="/w", messages=bad)
    assert path.read_bytes() == before
    assert sorted(p.name for p in sdir.iterdir()) == ["s.json"]


def test_save_omits_empty_optional_fields_and_keeps_unicode(sdir: Path) -> None:
    path = sdir / "s.json"
    messages: list[Message] = [
        {"role": "user", "content": "héllo ✓", "images": []},
        {"role": "assistant", "content": "ok", "thinking": "", "tool_calls": []},
    ]
    save_session(path, model="m", cwd="/w", messages=messages)
    text = path.read_text(encoding="utf-8")
    assert "héllo ✓" in text
    assert json.loads(text)["messages"] == [
        {"role": "user", "content": "héllo ✓"},
        {"role": "assistant", "content": "ok"},
    ]
    assert messages[1]["thinking"] == ""  # the caller's list is not touched


def test_save_over_cap_drops_whole_oldest_turns(sdir: Path) -> None:
    path = sdir / "s.json"
    messages = _conversation(10, size=1000)
    full = len(json.dumps({"messages": messages}, indent=2))
    save_session(path, model="m", cwd="/w", messages=messages, max_bytes=full // 2)
    assert path.stat().st_size <= full // 2
    kept = json.loads(path.read_text())["messages"]
    assert kept[0] == messages[0]  # system prompt survives
    assert kept[1]["role"] == "user"  # the cut lands on a prompt
    assert kept[-4:] == messages[-4:]  # the last turn survives
    assert 1 + 4 <= len(kept) < len(messages)
    assert (len(kept) - 1) % 4 == 0  # whole turns only
    # The fewest turns were dropped: one more turn would not have fit.
    one_more = messages[:1] + messages[len(messages) - len(kept) + 1 - 4 :]
    save_session(sdir / "probe.json", model="m", cwd="/w", messages=one_more)
    assert (sdir / "probe.json").stat().st_size > full // 2


def test_save_over_cap_always_keeps_last_turn(sdir: Path) -> None:
    path = sdir / "s.json"
    messages = _conversation(3, size=5000)
    save_session(path, model="m", cwd="/w", messages=messages, max_bytes=100)
    kept = json.loads(path.read_text())["messages"]
    assert kept == [messages[0], *messages[-4:]]


def test_save_cut_never_splits_tool_pairs(sdir: Path) -> None:
    # A turn with a nudge (a [system] user message) in the middle of tool traffic.
    messages = _conversation(4, size=800)
    messages[-2:-2] = [
        {"role": "user", "content": "[system] You have not changed any project files"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "n1", "function": {"name": "write", "arguments": {}}}],
        },
        {"role": "tool", "content": "ok", "tool_call_id": "n1", "tool_name": "write"},
    ]
    path = sdir / "s.json"
    save_session(path, model="m", cwd="/w", messages=messages, max_bytes=500)
    kept = json.loads(path.read_text())["messages"]
    assert kept[1] == {"role": "user", "content": "prompt 3"}
    ids = {c["id"] for m in kept for c in m.get("tool_calls", [])}
    assert {m["tool_call_id"] for m in kept if m["role"] == "tool"} <= ids


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(min_value=0, max_value=3000), min_size=1, max_size=8),
    cap=st.integers(min_value=50, max_value=20000),
)
def test_save_trim_properties(
    tmp_path_factory: pytest.TempPathFactory, sizes: list[int], cap: int
) -> None:
    path = tmp_path_factory.mktemp("trim") / "s.json"
    messages: list[Message] = [{"role": "system", "content": "sys"}]
    for n, size in enumerate(sizes):
        messages += _turn(n, size=size)
    save_session(path, model="m", cwd="/w", messages=messages, max_bytes=cap)
    kept = json.loads(path.read_text())["messages"]
    assert kept[0] == messages[0]
    assert kept[-4:] == messages[-4:]
    assert kept[1:] == messages[len(messages) - len(kept) + 1 :]  # a suffix of whole turns
    assert kept[1]["role"] == "user"
    if len(kept) > 5:
        assert path.stat().st_size <= cap


# --------------------------------------------------------------------- load


def test_load_missing_starts_fresh(sdir: Path) -> None:
    loaded = load_session(sdir / "nope.json")
    assert loaded.messages == [] and loaded.model is None and loaded.warning is None
    assert loaded.notice == "session file not found — starting fresh"


def test_load_empty_starts_fresh(sdir: Path) -> None:
    path = SessionStore(sdir).reserve()
    loaded = load_session(path)
    assert loaded.messages == [] and loaded.warning is None
    assert loaded.notice == "session has no saved turns yet — starting fresh"
    assert path.exists()


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b"\xff\xfe garbage",
        b"[1, 2, 3]",
        b'{"messages": "nope"}',
        b'{"messages": [{"role": "wizard", "content": "x"}]}',
        b'{"messages": [{"role": "user", "content": 5}]}',
        b'{"messages": [{"role": "assistant", "content": "", "tool_calls": [{"id": "x"}]}]}',
    ],
)
def test_load_corrupt_is_set_aside(sdir: Path, body: bytes) -> None:
    path = sdir / "123.json"
    path.write_bytes(body)
    loaded = load_session(path)
    backup = sdir / "123.json.corrupt"
    assert loaded.messages == [] and loaded.notice is None
    assert loaded.warning is not None
    assert "unreadable" in loaded.warning and str(backup) in loaded.warning
    assert not path.exists()
    assert backup.read_bytes() == body


def test_load_corrupt_does_not_clobber_an_earlier_backup(sdir: Path) -> None:
    path = sdir / "1.json"
    (sdir / "1.json.corrupt").write_text("first")
    path.write_text("second {")
    loaded = load_session(path)
    assert (sdir / "1.json.corrupt").read_text() == "first"
    backups = [p for p in sdir.iterdir() if p.name.startswith("1.json.corrupt.")]
    assert len(backups) == 1 and backups[0].read_text() == "second {"
    assert loaded.warning is not None and str(backups[0]) in loaded.warning


def test_load_valid_but_empty_document(sdir: Path) -> None:
    path = sdir / "s.json"
    _write(path, {"model": "m", "saved_at": 1, "cwd": "/w", "messages": []})
    loaded = load_session(path)
    assert loaded.messages == [] and loaded.model == "m" and loaded.warning is None
    assert loaded.notice == "session has no saved turns yet — starting fresh"
    assert path.exists()


def test_load_round_trips_a_save(sdir: Path) -> None:
    path = sdir / "s.json"
    messages = _conversation(2)
    messages[2]["thinking"] = "hmm"
    messages.append({"role": "user", "content": "look", "images": ["data:image/png;base64,AA"]})
    save_session(path, model="llama3", cwd="/w", messages=messages)
    loaded = load_session(path)
    assert loaded.messages == messages
    assert loaded.model == "llama3"
    assert loaded.notice is None and loaded.warning is None


def test_load_backfills_missing_tool_call_ids(sdir: Path) -> None:
    doc = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"function": {"name": "read", "arguments": {"path": "a"}}},
                    {"function": {"name": "ls", "arguments": {}}},
                ],
            },
            {"role": "tool", "content": "dir", "tool_name": "ls"},
            {"role": "tool", "content": "file a", "tool_name": "read"},
        ],
    }
    path = sdir / "old.json"
    _write(path, doc)
    messages = load_session(path).messages
    calls = messages[1]["tool_calls"]
    assert [c["id"] for c in calls] == ["call_1_0", "call_1_1"]
    assert messages[2]["tool_call_id"] == "call_1_1"  # paired by name, not order
    assert messages[3]["tool_call_id"] == "call_1_0"


def test_normalize_pairs_by_order_without_names_and_keeps_existing_ids() -> None:
    messages: list[Message] = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "keep", "function": {"name": "bash", "arguments": {}}},
                {"id": "", "function": {"name": "bash", "arguments": {}}},
                {"id": "", "function": {"name": "grep", "arguments": {}}},
            ],
        },
        {"role": "tool", "content": "1", "tool_call_id": "keep"},
        {"role": "tool", "content": "2"},
        {"role": "tool", "content": "3"},
        {"role": "assistant", "content": "done"},
        {"role": "tool", "content": "stray"},
    ]
    out = normalize_tool_call_ids(messages)
    assert [c["id"] for c in out[1]["tool_calls"]] == ["keep", "call_1_1", "call_1_2"]
    assert [m.get("tool_call_id") for m in out[2:5]] == ["keep", "call_1_1", "call_1_2"]
    assert "tool_call_id" not in out[6]
    assert messages[1]["tool_calls"][1]["id"] == ""  # input untouched
    assert "tool_call_id" not in messages[3]


# ---------------------------------------------------------------- listing


def test_list_items_order_title_turns(sdir: Path) -> None:
    now = time.time()
    _write(
        sdir / "a.json",
        {
            "model": "qwen3",
            "saved_at": 111,
            "cwd": "/proj",
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": "[system] resume note"},
                {"role": "user", "content": "   "},
                {"role": "user", "content": "Fix the parser\nit breaks on tabs"},
                {"role": "assistant", "content": "done"},
                {"role": "user", "content": "[system] You have not changed any files"},
                {"role": "user", "content": INTERRUPT_NOTE + "and the lexer"},
            ],
        },
        now - 10,
    )
    _write(sdir / "b.json", {"model": "m", "saved_at": 222, "cwd": "/x", "messages": []}, now)
    _write(sdir / "c.json", {"messages": [{"role": "user", "content": "y" * 300}]}, now - 20)
    (sdir / "d.json").write_text("{broken", encoding="utf-8")
    os.utime(sdir / "d.json", (now - 5, now - 5))
    (sdir / "e.json").touch()

    items = SessionStore(sdir).list_items()
    assert [Path(i.path).name for i in items] == ["b.json", "a.json", "c.json"]
    b, a, c = items
    assert (b.title, b.turns, b.saved_at, b.cwd, b.model) == ("(empty session)", 0, 222, "/x", "m")
    assert (a.title, a.turns, a.saved_at, a.cwd, a.model) == (
        "Fix the parser",
        2,
        111,
        "/proj",
        "qwen3",
    )
    assert c.title == "y" * 100 and c.turns == 1
    assert c.saved_at == int(now - 20) and c.model == "" and c.cwd == ""


def test_list_items_caps_at_limit_newest_first(sdir: Path) -> None:
    now = time.time()
    for n in range(205):
        doc = {
            "model": "m",
            "saved_at": n,
            "cwd": "/w",
            "messages": [{"role": "user", "content": f"t{n}"}],
        }
        _write(sdir / f"{n}.json", doc, now - 1000 + n)
    store = SessionStore(sdir)
    items = store.list_items()
    assert len(items) == 200
    assert items[0].title == "t204" and items[-1].title == "t5"
    assert [i.title for i in store.list_items(limit=3)] == ["t204", "t203", "t202"]


def test_list_items_sees_updates(sdir: Path) -> None:
    store = SessionStore(sdir)
    path = store.reserve()
    assert store.list_items() == []
    save_session(path, model="m", cwd="/w", messages=_conversation(1))
    assert [i.turns for i in store.list_items()] == [1]
    save_session(path, model="m", cwd="/w", messages=_conversation(3))
    assert [i.turns for i in store.list_items()] == [3]


# ---------------------------------------------------------------- history


def test_history_keeps_prompts_and_final_replies() -> None:
    messages: list[Message] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "[system] context note"},
        {"role": "user", "content": COMPACTED_PREFIX + "## Goal\n..."},
        *_turn(0),
        {"role": "user", "content": "[system] You have not changed any project files"},
        {"role": "assistant", "content": "   "},
        {"role": "user", "content": INTERRUPT_NOTE + "try again"},
        {"role": "assistant", "content": "sure", "tool_calls": []},
    ]
    assert history_for(messages) == [
        HistoryMessage("user", "prompt 0"),
        HistoryMessage("assistant", "reply 0"),
        HistoryMessage("user", "try again"),
        HistoryMessage("assistant", "sure"),
    ]
    assert user_turn_count(messages) == 2
    assert user_turn_count([]) == 0

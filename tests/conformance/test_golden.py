"""Golden wire shapes: one file per event type in `rift.events.EVENT_TYPES`.

Each `golden/<event>.json` pins the exact key set and value types of one event
(and exact values where the scenario makes them deterministic); the format is
described in `golden/README.md`. Every golden is checked against the events the
real binary writes during one scripted "tour" of the protocol (`run_tour`), so
an event type the tour cannot produce fails loudly instead of going unchecked.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fakes.fake_server import FakeModelServer

from rift.events import EVENT_TYPES, wire_fields

from .serve_session import ServeSession, isolated_environ

GOLDEN_DIR = Path(__file__).parent / "golden"
TYPE_NAMES = {"str", "int", "float", "number", "bool", "null", "object", "any"}

TOUR_SCRIPT: dict[str, Any] = {
    "models": [
        {"name": "fake-model", "capabilities": ["tools"], "context_length": 32768},
        {"name": "other-model", "capabilities": ["tools"], "context_length": 16384},
    ],
    "turns": [
        {
            "match": "golden one",
            "thinking": "hm",
            "content": "hi",
            "tool_calls": [
                {"name": "plan", "arguments": {"set": ["step one"]}},
                {"name": "write", "arguments": {"path": "new.txt", "content": "x\n"}},
            ],
        },
        {"match": "golden one", "content": "ok"},
        {
            "match": "golden two",
            "tool_calls": [
                {
                    "name": "edit",
                    "arguments": {"path": "f.txt", "old_string": "b", "new_string": "B"},
                }
            ],
        },
        {
            "match": "golden three",
            "tool_calls": [
                {
                    "name": "agent",
                    "arguments": {
                        "tasks": [{"description": "look around", "prompt": "golden child"}]
                    },
                },
                {
                    "name": "bash",
                    "arguments": {"command": "echo background-done", "run_in_background": True},
                },
            ],
        },
        {"match": "golden child", "tool_calls": [{"name": "ls", "arguments": {"path": "."}}]},
        {"match": "golden child", "content": "child report"},
        {"match": "golden three", "content": "ok"},
        {
            "match": "golden swarm",
            "tool_calls": [{"name": "write", "arguments": {"path": "s.txt", "content": "s\n"}}],
        },
        {"match": "golden swarm", "content": "swarmed"},
    ],
}
SKILL = "---\nname: golden\ndescription: A golden skill.\n---\nSay hello.\n"


# ---------------------------------------------------------------- shapes


def golden_files() -> dict[str, Path]:
    return {p.stem: p for p in sorted(GOLDEN_DIR.glob("*.json"))}


def load_golden(name: str) -> dict[str, Any]:
    path = GOLDEN_DIR / f"{name}.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def shape_errors(value: Any, shape: Any, where: str = "$") -> list[str]:
    """Where `value` departs from `shape` (see golden/README.md); [] when it conforms."""
    if isinstance(shape, str):
        ok = {
            "str": isinstance(value, str),
            "int": isinstance(value, int) and not isinstance(value, bool),
            "float": isinstance(value, float),
            "number": isinstance(value, int | float) and not isinstance(value, bool),
            "bool": isinstance(value, bool),
            "null": value is None,
            "object": isinstance(value, dict),
            "any": True,
        }[shape]
        return [] if ok else [f"{where}: expected {shape}, got {json.dumps(value)[:80]}"]
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{where}: expected an object, got {json.dumps(value)[:80]}"]
        errors = []
        if set(value) != set(shape):
            missing, extra = sorted(set(shape) - set(value)), sorted(set(value) - set(shape))
            errors.append(f"{where}: keys differ (missing {missing}, unexpected {extra})")
        for key in set(value) & set(shape):
            errors += shape_errors(value[key], shape[key], f"{where}.{key}")
        return errors
    assert isinstance(shape, list) and shape, f"bad shape at {where}"
    if not isinstance(value, list):
        return [f"{where}: expected a list, got {json.dumps(value)[:80]}"]
    errors = []
    for i, item in enumerate(value):
        options = [shape_errors(item, s, f"{where}[{i}]") for s in shape]
        if all(options):
            errors += min(options, key=len)
    return errors


def _check_shape_is_well_formed(shape: Any) -> None:
    if isinstance(shape, str):
        assert shape in TYPE_NAMES, f"unknown type name {shape!r}"
    elif isinstance(shape, dict):
        for sub in shape.values():
            _check_shape_is_well_formed(sub)
    else:
        assert isinstance(shape, list) and shape, f"bad shape {shape!r}"
        for sub in shape:
            _check_shape_is_well_formed(sub)


# ------------------------------------------------------------------ tour


def _commit(project: Path) -> None:
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "tour"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
            cwd=project,
            check=True,
            capture_output=True,
        )


def run_tour(root: Path) -> dict[str, list[dict[str, Any]]]:
    """Drive the real binary through every event it can emit today; events by name."""
    project = root / "project"
    (project / ".rift" / "skills").mkdir(parents=True)
    (project / ".rift" / "skills" / "golden.md").write_text(SKILL, encoding="utf-8")
    (project / "f.txt").write_text("a\nb\nc", encoding="utf-8")
    _commit(project)  # a git repository with a commit: `swarm` races in worktrees of it
    env = isolated_environ(root / "home")
    server = FakeModelServer(TOUR_SCRIPT).start()
    flags = ["--host", server.url, "-m", "fake-model"]
    try:
        first = ServeSession(flags, project, env)
        try:
            ready = first.expect("ready")
            first.expect("context")
            first.prompt("golden one")
            ask = first.expect("ask")
            first.send({"cmd": "answer", "id": ask["id"], "text": "allow"})
            first.read_until("done")
            first.expect("context")
            first.send({"cmd": "hello", "edit_review": True})
            first.expect("capabilities")
            first.prompt("golden two")
            review = first.expect("edit_review")
            first.send({"cmd": "cancel"})
            first.expect("edit_review_closed", id=review["id"])
            first.read_until("done")
            first.expect("context")
            first.send({"cmd": "undo"})
            first.expect("info")
            first.send({"cmd": "list_sessions"})
            first.expect("sessions")
            first.send({"cmd": "list_models"})
            first.expect("models")
            first.send({"cmd": "set_approval", "approve": False})
            first.expect("approval_changed")
            first.send({"cmd": "set_model", "model": "other-model"})
            first.expect("model_changed")
            first.expect("context")
            first.prompt("golden three")  # approval is off: sub-agent and background task
            first.read_until("done")
            if "task_finished" not in first.names():
                first.expect("task_finished")
            first.send({"cmd": "swarm", "task": "golden swarm", "judge": "none"})
            first.expect("swarm_result")
            first.send({"cmd": "merge", "name": "0-other-model", "cleanup": True})
            first.expect("info")
            first.send({"cmd": "new_session"})  # the old session stays resumable (below)
            first.expect("session_changed")
            assert first.close() == 0
        finally:
            first.kill()
        second = ServeSession([*flags, "--resume", ready["session"]], project, env)
        try:
            second.read_until("history")
            assert second.close() == 0
        finally:
            second.kill()
    finally:
        server.stop()
    third = _prefill_tour(project, env)
    seen: dict[str, list[dict[str, Any]]] = {}
    for event in first.events + second.events + third.events:
        seen.setdefault(event["event"], []).append(event)
    return seen


def _prefill_tour(project: Path, env: dict[str, str]) -> ServeSession:
    """A llama.cpp-like server (OpenAI wire, `/props`) that reports reading the prompt."""
    script = {
        "wire": "openai",
        "props": {"default_generation_settings": {"n_ctx": 32768}, "total_slots": 1},
        "turns": [{"prompt_progress": [[2048, 4096, 1024, 500]], "content": "read"}],
    }
    server = FakeModelServer(script).start()
    try:
        session = ServeSession(["--host", f"{server.url}/v1", "-m", "fake-model"], project, env)
        try:
            session.read_until("context")
            session.prompt("golden prefill")
            session.read_until("done")
            assert session.close() == 0
        finally:
            session.kill()
    finally:
        server.stop()
    return session


@pytest.fixture(scope="module")
def wire_events(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    return run_tour(tmp_path_factory.mktemp("golden-tour"))


# ------------------------------------------------------------------ tests


def test_every_event_type_has_a_golden_file() -> None:
    missing = sorted(set(EVENT_TYPES) - set(golden_files()))
    assert not missing, f"event types without a golden/<event>.json file: {missing}"


def test_every_golden_file_names_a_known_event() -> None:
    unknown = sorted(set(golden_files()) - set(EVENT_TYPES))
    assert not unknown, f"golden files for events rift does not define: {unknown}"


@pytest.mark.parametrize("name", sorted(golden_files()))
def test_golden_file_is_well_formed(name: str) -> None:
    golden = load_golden(name)
    assert set(golden) == {"event", "scenario", "shape", "exact"}
    assert golden["event"] == name
    _check_shape_is_well_formed(golden["shape"])
    assert golden["shape"]["event"] == "str"
    assert golden["exact"]["event"] == name
    assert set(golden["exact"]) <= set(golden["shape"])


@pytest.mark.parametrize("name", sorted(EVENT_TYPES))
def test_golden_keys_are_the_event_wire_fields(name: str) -> None:
    fields = {wire for wire, _ in wire_fields(EVENT_TYPES[name])}
    assert set(load_golden(name)["shape"]) == {"event", *fields}


@pytest.mark.parametrize("name", sorted(golden_files()))
def test_wire_event_matches_golden(name: str, wire_events: dict[str, list[dict[str, Any]]]) -> None:
    golden = load_golden(name)
    observed = wire_events.get(name)
    assert observed, f"the golden tour produced no {name} event"
    for event in observed:
        errors = shape_errors(event, golden["shape"])
        assert not errors, f"{json.dumps(event)[:400]}\n" + "\n".join(errors)
    first = observed[0]
    if name == "models":  # the installed embedded models (rift[local]) depend on the machine
        first = {**first, "models": [m for m in first["models"] if not m.startswith("embedded/")]}
    for key, value in golden["exact"].items():
        assert first[key] == value, f"{name}.{key}"


def test_shape_checker_catches_departures() -> None:
    shape = {"event": "str", "n": "int", "rate": "float", "items": [{"a": "bool"}, {"b": "str"}]}
    good = {"event": "x", "n": 1, "rate": 0.0, "items": [{"a": True}, {"b": "y"}]}
    assert shape_errors(good, shape) == []
    bad = [
        {**good, "extra": 1},
        {k: v for k, v in good.items() if k != "n"},
        {**good, "n": True},
        {**good, "n": "1"},
        {**good, "rate": 0},
        {**good, "items": [{"a": 1}]},
        {**good, "items": [{"c": "z"}]},
        {**good, "items": {"a": True}},
    ]
    for value in bad:
        assert shape_errors(value, shape), value

"""The scripted fake model server itself: endpoints, turn selection, logging, CLI."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from fakes.fake_server import EXHAUSTED_TEXT, FakeModelServer

from rift.models.base import ChatRequest, ContentDelta, Message, ModelEvent, StreamDone
from rift.models.ollama import OllamaProvider
from rift.models.openai import OpenAIProvider

pytestmark = pytest.mark.timeout(20)
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def text_of(events: list[ModelEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ContentDelta))


async def ask(url: str, prompt: str, *, openai: bool = False) -> list[ModelEvent]:
    messages: list[Message] = [{"role": "user", "content": prompt}]
    provider = OpenAIProvider(url + "/v1") if openai else OllamaProvider(url)
    try:
        return [e async for e in provider.stream_chat(ChatRequest("fake-model", messages))]
    finally:
        await provider.aclose()


def test_default_model_endpoints() -> None:
    with FakeModelServer({}) as server, httpx.Client(base_url=server.url) as client:
        tags = client.get("/api/tags").json()
        shown = client.post("/api/show", json={"model": "fake-model"}).json()
        missing = client.post("/api/show", json={"model": "x"})
        models = client.get("/v1/models").json()
        prefixed = client.get("/coding/v1/models").json()
        unknown = client.get("/nowhere")
    assert [m["name"] for m in tags["models"]] == ["fake-model"]
    assert shown["capabilities"] == ["tools"]
    assert shown["model_info"]["fake.context_length"] == 32768
    assert (missing.status_code, missing.json()) == (404, {"error": "model 'x' not found"})
    assert models["data"][0]["id"] == "fake-model"
    assert models["data"][0]["max_model_len"] == 32768
    assert prefixed == models
    assert unknown.status_code == 404


def test_turns_are_served_in_order_then_exhausted() -> None:
    script = {"turns": [{"content": "one"}, {"content": "two", "repeat": 2}]}
    with FakeModelServer(script) as server:
        replies = [text_of(run(ask(server.url, "q", openai=i % 2 == 1))) for i in range(5)]
    assert replies == ["one", "two", "two", EXHAUSTED_TEXT, EXHAUSTED_TEXT]


def test_match_routes_conversations_to_their_own_turns() -> None:
    script = {
        "turns": [
            {"match": "SUBTASK", "content": "child 1"},
            {"content": "parent 1"},
            {"match": "SUBTASK", "content": "child 2"},
            {"content": "parent 2"},
        ]
    }
    with FakeModelServer(script) as server:
        order = [
            ("main task", "parent 1"),
            ("SUBTASK: look", "child 1"),
            ("SUBTASK: again", "child 2"),
            ("main task again", "parent 2"),
            ("SUBTASK: more", EXHAUSTED_TEXT),
        ]
        got = [(prompt, text_of(run(ask(server.url, prompt)))) for prompt, _ in order]
    assert got == order


def test_requests_are_logged_in_memory_and_to_file(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with FakeModelServer({}, log_path=log) as server:
        run(ask(server.url, "hello"))
        run(ask(server.url, "hello again", openai=True))
        records = server.requests()
        chats = server.chat_requests()
    on_disk = [json.loads(line) for line in log.read_text().splitlines()]
    assert on_disk == records
    assert [(r["_method"], r["_path"]) for r in records] == [
        ("POST", "/api/chat"),
        ("POST", "/v1/chat/completions"),
    ]
    assert chats[1]["messages"] == [{"role": "user", "content": "hello again"}]
    assert server.requests("/api/chat") == records[:1]


@pytest.mark.parametrize("openai", [False, True])
def test_a_hundred_thousand_deltas_stream_quickly(openai: bool) -> None:
    script = {"turns": [{"content_repeat": {"text": "x", "count": 100_000}}]}
    with FakeModelServer(script) as server:
        started = time.monotonic()
        events = run(ask(server.url, "go", openai=openai))
        elapsed = time.monotonic() - started
    assert sum(isinstance(e, ContentDelta) for e in events) == 100_000
    assert isinstance(events[-1], StreamDone)
    assert elapsed < 5


@pytest.mark.parametrize("openai", [False, True])
def test_content_sequence_streams_distinct_numbered_words(openai: bool) -> None:
    script = {"turns": [{"content": "go: ", "content_sequence": {"count": 1000}}]}
    with FakeModelServer(script) as server:
        events = run(ask(server.url, "go", openai=openai))
    deltas = [e.text for e in events if isinstance(e, ContentDelta)]
    assert deltas == ["go: ", *(f"w{i} " for i in range(1000))]


def test_content_sequence_takes_a_prefix() -> None:
    script = {"turns": [{"content_sequence": {"count": 3, "prefix": "tok"}}]}
    with FakeModelServer(script) as server:
        assert text_of(run(ask(server.url, "go"))) == "tok0 tok1 tok2 "


def test_never_end_stops_when_the_client_leaves() -> None:
    async def first_three(url: str) -> list[ModelEvent]:
        provider = OllamaProvider(url)
        events: list[ModelEvent] = []
        request = ChatRequest("fake-model", [{"role": "user", "content": "go"}])
        try:
            stream = provider.stream_chat(request)
            async for event in stream:
                events.append(event)
                if len(events) == 3:
                    break
            await stream.aclose()  # type: ignore[attr-defined]
        finally:
            await provider.aclose()
        return events

    with FakeModelServer({"turns": [{"never_end": ".", "chunk_delay": 0.01}]}) as server:
        events = run(first_three(server.url))
    assert events == [ContentDelta("."), ContentDelta("."), ContentDelta(".")]


def test_subprocess_mode(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [{"content": ["from ", "a subprocess"]}]}))
    log = tmp_path / "log.jsonl"
    process = subprocess.Popen(
        [
            sys.executable,
            str(Path(__file__).resolve().parent / "fakes" / "fake_server.py"),
            "--script",
            str(script),
            "--log",
            str(log),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    try:
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        events = run(ask(url, "hi"))
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stdout.close()
    assert text_of(events) == "from a subprocess"
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert logged[0]["messages"] == [{"role": "user", "content": "hi"}]
    assert process.returncode == 0

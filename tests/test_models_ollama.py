"""The Ollama provider against the fake server, over real HTTP."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest
from fakes.fake_server import FakeModelServer

from rift.errors import ReadIdleTimeout, ServerHTTPError, ServerUnreachable, StreamError
from rift.models.base import (
    ChatRequest,
    ContentDelta,
    Message,
    ModelEvent,
    StreamDone,
    ThinkingDelta,
    ToolCall,
    Usage,
)
from rift.models.ollama import OllamaProvider

pytestmark = pytest.mark.timeout(20)
T = TypeVar("T")
USER: list[Message] = [{"role": "user", "content": "hi"}]


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


async def collect(
    url: str, request: ChatRequest | None = None, read_timeout: float = 5.0
) -> list[ModelEvent]:
    provider = OllamaProvider(url, read_timeout)
    try:
        return [e async for e in provider.stream_chat(request or ChatRequest("m", USER))]
    finally:
        await provider.aclose()


def chat(script: dict[str, Any], **kwargs: Any) -> tuple[list[ModelEvent], FakeModelServer]:
    with FakeModelServer(script) as server:
        return run(collect(server.url, **kwargs)), server


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_streams_thinking_content_tool_calls_and_usage() -> None:
    turn = {
        "thinking": ["let me ", "see"],
        "content": ["Hel", "lo"],
        "tool_calls": [
            {"name": "read", "arguments": {"path": "a.py"}},
            {"id": "c2", "name": "bash", "arguments": '{"cmd": "ls"}'},
        ],
        "usage": {"prompt_tokens": 11, "output_tokens": 4, "eval_duration_s": 0.5},
    }
    events, _ = chat({"turns": [turn]})
    assert events == [
        ThinkingDelta("let me "),
        ThinkingDelta("see"),
        ContentDelta("Hel"),
        ContentDelta("lo"),
        ToolCall(id=None, name="read", arguments={"path": "a.py"}),
        ToolCall(id="c2", name="bash", arguments={"cmd": "ls"}, raw_arguments='{"cmd": "ls"}'),
        Usage(prompt_tokens=11, output_tokens=4, eval_duration_s=0.5, prefill_tokens=11),
        StreamDone("stop"),
    ]


def test_string_arguments_that_are_not_json_are_kept_raw() -> None:
    events, _ = chat({"turns": [{"tool_calls": [{"name": "edit", "arguments": "{oops"}]}]})
    assert ToolCall(id=None, name="edit", arguments=None, raw_arguments="{oops") in events


def test_final_done_line_without_newline_is_flushed() -> None:
    events, _ = chat({"turns": [{"content": "ok", "final_newline": False}]})
    assert events[0] == ContentDelta("ok")
    assert isinstance(events[-1], StreamDone)


def test_request_body_shape() -> None:
    messages: list[Message] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "look", "images": ["data:image/png;base64,QUJD", "REVG"]},
        {
            "role": "assistant",
            "content": "",
            "thinking": "hmm",
            "tool_calls": [{"id": "c1", "function": {"name": "read", "arguments": {"path": "x"}}}],
        },
        {"role": "tool", "content": "data", "tool_name": "read", "tool_call_id": "c1"},
    ]
    request = ChatRequest(
        "qwen3",
        messages,
        tools=[{"type": "function"}],
        temperature=None,
        think=False,
        num_predict=64,
    )
    with FakeModelServer({}) as server:
        run(collect(server.url, request))
        body = server.chat_requests()[0]
    assert body["model"] == "qwen3"
    assert body["stream"] is True and body["keep_alive"] == "10m"
    assert body["think"] is False
    assert body["options"] == {"num_ctx": 32768, "num_predict": 64}
    assert body["tools"] == [{"type": "function"}]
    assert body["messages"][1]["images"] == ["QUJD", "REVG"]
    assert body["messages"][2]["tool_calls"] == [
        {"id": "c1", "function": {"name": "read", "arguments": {"path": "x"}}}
    ]
    assert body["messages"][3] == {
        "role": "tool",
        "content": "data",
        "tool_name": "read",
        "tool_call_id": "c1",
    }


def test_think_is_omitted_when_none() -> None:
    with FakeModelServer({}) as server:
        run(collect(server.url, ChatRequest("m", USER, think=None)))
        body = server.chat_requests()[0]
    assert "think" not in body
    assert body["options"]["temperature"] == 0.2


@pytest.mark.parametrize(
    ("shape", "message"),
    [("string", "model is loading"), ("object", "model is loading"), ("plain", "model is loading")],
)
def test_http_error_carries_message_and_is_not_retried(shape: str, message: str) -> None:
    script = {"turns": [{"status": 500, "error": "model is loading", "error_shape": shape}]}
    with FakeModelServer(script) as server:
        with pytest.raises(ServerHTTPError) as info:
            run(collect(server.url))
        assert len(server.chat_requests()) == 1
    assert info.value.status == 500
    assert info.value.message == message


def test_long_plain_error_body_is_cut_to_600_chars() -> None:
    script = {"turns": [{"status": 502, "error": "x" * 1000, "error_shape": "plain"}]}
    with FakeModelServer(script) as server, pytest.raises(ServerHTTPError) as info:
        run(collect(server.url))
    assert info.value.message == "x" * 600


def test_mid_stream_drop_is_a_stream_error() -> None:
    script = {"turns": [{"content": ["a", "b", "c"], "drop_after": 2}]}
    with FakeModelServer(script) as server, pytest.raises(StreamError, match="mid-answer"):
        run(collect(server.url))


def test_stream_ending_without_done_is_a_stream_error() -> None:
    script = {"turns": [{"content": "a", "truncate": True}]}
    with FakeModelServer(script) as server, pytest.raises(StreamError, match="done line"):
        run(collect(server.url))


def test_malformed_line_is_a_stream_error() -> None:
    script = {"turns": [{"content": "a", "garbage": "<html>oops</html>", "never_end": True}]}
    expected = "malformed line from the model server: <html>"
    with FakeModelServer(script) as server, pytest.raises(StreamError, match=expected):
        run(collect(server.url))


def test_error_line_mid_stream() -> None:
    script = {"turns": [{"content": "a", "garbage": '{"error":"out of memory"}'}]}
    with FakeModelServer(script) as server, pytest.raises(StreamError, match="out of memory"):
        run(collect(server.url))


def test_connect_refused_retries_then_unreachable() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()
    with pytest.raises(ServerUnreachable) as info:
        run(collect(url))
    elapsed = time.monotonic() - started
    assert 1.1 <= elapsed < 4.0  # backoff 0.4 s + 0.8 s
    assert url in str(info.value)


def test_silent_server_is_retried_then_read_idle_timeout() -> None:
    script = {"turns": [{"delay_first_byte": 5, "repeat": 3}, {"content": "late"}]}
    started = time.monotonic()
    with FakeModelServer(script) as server:
        with pytest.raises(ReadIdleTimeout) as info:
            run(collect(server.url, read_timeout=0.3))
        assert len(server.chat_requests()) == 3
    assert 0.3 * 3 + 1.2 <= time.monotonic() - started < 6
    assert info.value.seconds == 0.3


def test_read_idle_timeout_mid_stream_is_not_retried() -> None:
    script = {"turns": [{"content": ["a", "b"], "chunk_delay": 2}]}
    with FakeModelServer(script) as server:
        with pytest.raises(ReadIdleTimeout):
            run(collect(server.url, read_timeout=0.3))
        assert len(server.chat_requests()) == 1


def test_list_and_show() -> None:
    script = {
        "models": [
            {"name": "a:7b", "capabilities": ["tools", "thinking"], "context_length": 8192},
            {"name": "b", "capabilities": ["completion"]},
        ]
    }

    async def go(url: str) -> tuple[Any, ...]:
        provider = OllamaProvider(url, 5)
        try:
            return (
                await provider.list_models(),
                await provider.show("a:7b"),
                await provider.show("b"),
            )
        finally:
            await provider.aclose()

    async def missing(url: str) -> None:
        provider = OllamaProvider(url, 5)
        try:
            await provider.show("nope")
        finally:
            await provider.aclose()

    with FakeModelServer(script) as server:
        names, a, b = run(go(server.url))
        with pytest.raises(ServerHTTPError) as info:
            run(missing(server.url))
    assert names == ["a:7b", "b"]
    assert a.capabilities == {"tools", "thinking"} and a.context_length == 8192
    assert b.capabilities == frozenset() and b.context_length is None
    assert info.value.status == 404 and info.value.message == "model 'nope' not found"

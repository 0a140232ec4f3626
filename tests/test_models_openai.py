"""The OpenAI-compatible provider against the fake server, over real HTTP."""

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
    ModelInfo,
    StreamDone,
    ThinkingDelta,
    ToolCall,
    Usage,
)
from rift.models.openai import OpenAIProvider

pytestmark = pytest.mark.timeout(20)
T = TypeVar("T")
USER: list[Message] = [{"role": "user", "content": "hi"}]


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


async def collect(
    url: str,
    request: ChatRequest | None = None,
    read_timeout: float = 5.0,
    api_key: str | None = None,
) -> list[ModelEvent]:
    provider = OpenAIProvider(url, api_key, read_timeout)
    try:
        return [e async for e in provider.stream_chat(request or ChatRequest("m", USER))]
    finally:
        await provider.aclose()


async def show(url: str, model: str) -> ModelInfo:
    provider = OpenAIProvider(url, None, 5)
    try:
        return await provider.show(model)
    finally:
        await provider.aclose()


def chat(script: dict[str, Any], **kwargs: Any) -> list[ModelEvent]:
    with FakeModelServer(script) as server:
        return run(collect(server.v1_url, **kwargs))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_streams_reasoning_content_split_tool_calls_and_usage() -> None:
    turn = {
        "thinking": ["plan", "ning"],
        "content": ["Hel", "lo"],
        "tool_calls": [
            {"id": "call_a", "name": "read", "arguments": {"path": "a.py", "limit": 20}},
            {"name": "bash", "arguments": {"cmd": "ls -la"}},
        ],
        "usage": {"prompt_tokens": 12, "output_tokens": 5},
    }
    events = chat({"turns": [turn]})
    assert events[:4] == [
        ThinkingDelta("plan"),
        ThinkingDelta("ning"),
        ContentDelta("Hel"),
        ContentDelta("lo"),
    ]
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("call_a", "read", {"path": "a.py", "limit": 20}),
        ("call_fake_2", "bash", {"cmd": "ls -la"}),
    ]
    assert events[-2:] == [Usage(prompt_tokens=12, output_tokens=5), StreamDone("tool_calls")]


def test_invalid_and_empty_arguments() -> None:
    turn = {
        "tool_calls": [{"name": "edit", "arguments": "{bad json"}, {"name": "ls", "arguments": ""}]
    }
    calls = [e for e in chat({"turns": [turn]}) if isinstance(e, ToolCall)]
    assert calls[0].arguments is None and calls[0].raw_arguments == "{bad json"
    assert calls[1].arguments == {}


def test_missing_done_marker_is_tolerated() -> None:
    events = chat({"turns": [{"content": "ok", "omit_done": True, "final_newline": False}]})
    assert events[0] == ContentDelta("ok")
    assert events[-1] == StreamDone("stop")


def test_stream_ending_before_finish_is_a_stream_error() -> None:
    with pytest.raises(StreamError, match="mid-answer"):
        chat({"turns": [{"content": "partial", "truncate": True}]})


def test_request_body_and_auth_header() -> None:
    messages: list[Message] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "see", "images": ["data:image/jpeg;base64,QUJD"]},
        {
            "role": "assistant",
            "content": "",
            "thinking": "secret",
            "tool_calls": [
                {"id": "", "function": {"name": "read", "arguments": {"path": "x"}}},
                {"id": "c2", "function": {"name": "ls", "arguments": {}}},
            ],
        },
        {"role": "tool", "content": "listing", "tool_name": "ls", "tool_call_id": "c2"},
        {"role": "tool", "content": "file", "tool_name": "read"},
    ]
    request = ChatRequest("gpt", messages, tools=[{"type": "function"}], num_predict=99)
    with FakeModelServer({}) as server:
        run(collect(server.v1_url, request, api_key="sk-test"))
        body = server.chat_requests()[0]
    assert body["_auth"] == "Bearer sk-test"
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 99 and body["temperature"] == 0.2
    sent = body["messages"]
    assert sent[1]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/jpeg;base64,QUJD"},
    }
    assert "thinking" not in sent[2]
    assert sent[2]["tool_calls"][0] == {
        "id": "call_1",
        "type": "function",
        "function": {"name": "read", "arguments": '{"path": "x"}'},
    }
    assert sent[3] == {"role": "tool", "tool_call_id": "c2", "content": "listing"}
    assert sent[4] == {"role": "tool", "tool_call_id": "call_1", "content": "file"}


def test_stream_options_rejection_is_retried_once_without_it() -> None:
    script = {"turns": [{"reject_stream_options": True, "content": "fine"}]}
    with FakeModelServer(script) as server:
        events = run(collect(server.v1_url))
        bodies = server.chat_requests()
    assert ContentDelta("fine") in events
    assert len(bodies) == 2
    assert "stream_options" in bodies[0] and "stream_options" not in bodies[1]


@pytest.mark.parametrize("shape", ["string", "object", "plain"])
def test_http_error_carries_message_and_is_not_retried(shape: str) -> None:
    script = {"turns": [{"status": 429, "error": "rate limited", "error_shape": shape}]}
    with FakeModelServer(script) as server:
        with pytest.raises(ServerHTTPError) as info:
            run(collect(server.v1_url))
        assert len(server.chat_requests()) == 1
    assert (info.value.status, info.value.message) == (429, "rate limited")
    assert str(info.value) == "429: rate limited"


def test_mid_stream_drop_is_a_stream_error() -> None:
    with pytest.raises(StreamError, match="closed the stream mid-answer"):
        chat({"turns": [{"content": ["a", "b", "c"], "drop_after": 2}]})


def test_malformed_line_is_a_stream_error() -> None:
    with pytest.raises(StreamError, match="malformed line from the model server: not json"):
        chat({"turns": [{"content": "a", "garbage": "not json", "never_end": True}]})


def test_malformed_data_payload_is_a_stream_error() -> None:
    with pytest.raises(StreamError, match="malformed line"):
        chat({"turns": [{"content": "a", "garbage": "data: {broken"}]})


def test_error_object_mid_stream() -> None:
    garbage = 'data: {"error": {"message": "context overflow"}}'
    with pytest.raises(StreamError, match="context overflow"):
        chat({"turns": [{"content": "a", "garbage": garbage}]})


def test_connect_refused_retries_then_unreachable() -> None:
    started = time.monotonic()
    with pytest.raises(ServerUnreachable):
        run(collect(f"http://127.0.0.1:{free_port()}/v1"))
    assert 1.1 <= time.monotonic() - started < 4.0


def test_silent_server_is_retried_then_read_idle_timeout() -> None:
    script = {"turns": [{"delay_first_byte": 5, "repeat": 3}]}
    with FakeModelServer(script) as server:
        with pytest.raises(ReadIdleTimeout):
            run(collect(server.v1_url, read_timeout=0.3))
        assert len(server.chat_requests()) == 3


def test_read_idle_timeout_mid_stream() -> None:
    script = {"turns": [{"content": ["a", "b"], "chunk_delay": 2}]}
    with FakeModelServer(script) as server:
        with pytest.raises(ReadIdleTimeout):
            run(collect(server.v1_url, read_timeout=0.3))
        assert len(server.chat_requests()) == 1


def test_show_reads_context_length_fields_and_capabilities() -> None:
    script: dict[str, list[dict[str, Any]]] = {
        "models": [
            {"name": "vllm", "context_length": 65536},
            {
                "name": "router",
                "extra": {
                    "context_length": 200000,
                    "architecture": {"input_modalities": ["text", "image"]},
                    "supported_parameters": ["tools", "reasoning"],
                },
            },
            {"name": "studio", "extra": {"max_context_length": 4096}},
            {"name": "llamacpp", "extra": {"meta": {"n_ctx_train": 8192}}},
            {"name": "plain"},
        ]
    }
    with FakeModelServer(script) as server:
        infos = {m["name"]: run(show(server.v1_url, m["name"])) for m in script["models"]}
        with pytest.raises(ServerHTTPError) as info:
            run(show(server.v1_url, "missing"))
    assert {k: v.context_length for k, v in infos.items()} == {
        "vllm": 65536,
        "router": 200000,
        "studio": 4096,
        "llamacpp": 8192,
        "plain": None,
    }
    assert infos["router"].capabilities == {"tools", "vision", "thinking"}
    # Nothing declared: thinking is not ruled out (effort may still be sent), vision is.
    assert infos["plain"].capabilities == {"tools", "thinking"}
    assert (info.value.status, info.value.message) == (404, "model 'missing' not found")


def test_show_with_empty_model_list_assumes_tools() -> None:
    with FakeModelServer({"models": []}) as server:
        info = run(show(server.v1_url, "anything"))
    assert info == ModelInfo("anything", frozenset({"tools", "thinking"}), None)


# ------------------------------------------- thinking control per model family


def _sent(model: str, think: Any, temperature: float | None = 0.2) -> dict[str, Any]:
    """The body the fake server received for one request, bookkeeping keys removed."""
    request = ChatRequest(model, USER, think=think, temperature=temperature)
    with FakeModelServer({}) as server:
        run(collect(server.v1_url, request))
        body = server.chat_requests()[0]
    return {k: v for k, v in body.items() if not k.startswith("_") and k != "messages"}


BASE = {"model": "", "stream": True, "stream_options": {"include_usage": True}}


@pytest.mark.parametrize(
    ("model", "think", "expected"),
    [
        # Qwen3 hybrids: the template switch; sampling left to the server while thinking
        ("Qwen3-30B-A3B", False,
         {"temperature": 0.2, "chat_template_kwargs": {"enable_thinking": False}}),
        ("unsloth/Qwen3-8B-GGUF", True, {"chat_template_kwargs": {"enable_thinking": True}}),
        ("qwen3:32b", "high", {"chat_template_kwargs": {"enable_thinking": True}}),
        ("qwen3:32b", None, {}),
        # gpt-oss: always thinks; effort in both places; "off" is its lowest level
        ("ggml-org/gpt-oss-20b", False,
         {"temperature": 0.2, "reasoning_effort": "low",
          "chat_template_kwargs": {"reasoning_effort": "low"}}),
        ("gpt-oss-120b", "max",
         {"temperature": 0.2, "reasoning_effort": "high",
          "chat_template_kwargs": {"reasoning_effort": "high"}}),
        ("gpt-oss-120b", "medium",
         {"temperature": 0.2, "reasoning_effort": "medium",
          "chat_template_kwargs": {"reasoning_effort": "medium"}}),
        ("gpt-oss-120b", None, {"temperature": 0.2}),
        # Qwen3-Coder does not think: nothing to switch
        ("Qwen3-Coder-30B-A3B-Instruct", False, {"temperature": 0.2}),
        # DeepSeek-R1: always thinks, sampling is the server's
        ("deepseek-r1-distill-qwen-32b", True, {}),
        # an unknown model: the switch and the effort, sampling kept (as before)
        ("fake-model", "low",
         {"temperature": 0.2, "reasoning_effort": "low",
          "chat_template_kwargs": {"enable_thinking": True}}),
        ("fake-model", False,
         {"temperature": 0.2, "chat_template_kwargs": {"enable_thinking": False}}),
    ],
)  # fmt: skip
def test_thinking_control_is_the_model_familys(model: str, think: Any, expected: Any) -> None:
    assert _sent(model, think) == {**BASE, "model": model, **expected}


def test_openai_reasoning_models_never_get_a_temperature() -> None:
    """o-series and gpt-5 answer 400 to any temperature but 1; OpenAI itself also
    refuses chat_template_kwargs (the hosted URL never gets them)."""
    assert _sent("o3-mini", "minimal") == {
        **BASE, "model": "o3-mini", "reasoning_effort": "minimal"
    }  # fmt: skip
    assert _sent("gpt-5", None) == {**BASE, "model": "gpt-5"}
    assert _sent("gpt-4o", None)["temperature"] == 0.2

"""The Anthropic Messages provider against the fake server's Anthropic wire, over real HTTP."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fakes.fake_server import FakeModelServer

from rift.errors import ServerHTTPError, StreamError
from rift.models.anthropic import THINKING_KEY, AnthropicProvider, chat_body
from rift.models.base import (
    ChatRequest,
    ContentDelta,
    Message,
    ModelEvent,
    ProviderData,
    StreamDone,
    ThinkingDelta,
    ToolCall,
    Usage,
)

pytestmark = pytest.mark.timeout(20)
USER: list[Message] = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


def chat(script: dict[str, Any], request: ChatRequest | None = None) -> list[ModelEvent]:
    async def go(url: str) -> list[ModelEvent]:
        provider = AnthropicProvider(url, "key", 5)
        try:
            return [e async for e in provider.stream_chat(request or ChatRequest("m", USER))]
        finally:
            await provider.aclose()

    with FakeModelServer({"wire": "anthropic", **script}) as server:
        return asyncio.run(go(server.v1_url))


def test_stream_events_in_order_with_signed_thinking_and_usage() -> None:
    turn = {
        "thinking": ["a", "b"],
        "content": ["Hel", "lo"],
        "tool_calls": [{"id": "toolu_9", "name": "read", "arguments": {"path": "x"}}],
        "usage": {"prompt_tokens": 77, "output_tokens": 5},
    }
    events = chat({"turns": [turn]})
    assert events == [
        ThinkingDelta("a"),
        ThinkingDelta("b"),
        ContentDelta("Hel"),
        ContentDelta("lo"),
        ToolCall("toolu_9", "read", {"path": "x"}, '{"path":"x"}'),
        ProviderData(
            {THINKING_KEY: [{"type": "thinking", "thinking": "ab", "signature": "fake-signature"}]}
        ),
        Usage(prompt_tokens=77, output_tokens=5),
        StreamDone("tool_calls"),
    ]


def test_a_dropped_stream_is_an_error_not_an_empty_answer() -> None:
    with pytest.raises(StreamError, match="mid-answer"):
        chat({"turns": [{"content": ["a", "b", "c"], "drop_after": 3}]})


def test_http_errors_keep_the_servers_message() -> None:
    with pytest.raises(ServerHTTPError) as info:
        chat({"turns": [{"status": 400, "error": "prompt is too long"}]})
    assert (info.value.status, info.value.message) == (400, "prompt is too long")


def test_malformed_tool_input_is_reported_raw() -> None:
    turn = {"tool_calls": [{"name": "read", "arguments": "{not json"}]}
    calls = [e for e in chat({"turns": [turn]}) if isinstance(e, ToolCall)]
    assert calls == [ToolCall("toolu_fake_1", "read", None, "{not json")]


def test_models_and_show() -> None:
    models = [{"name": "claude-sonnet-4-5"}, {"name": "claude-3-5-haiku-latest"}]

    async def go(url: str) -> tuple[list[str], Any, Any]:
        provider = AnthropicProvider(url, "key", 5)
        try:
            names = await provider.list_models()
            new, old = [await provider.show(m["name"]) for m in models]
            with pytest.raises(ServerHTTPError):
                await provider.show("claude-nope")
            return names, new, old
        finally:
            await provider.aclose()

    with FakeModelServer({"wire": "anthropic", "models": models}) as server:
        names, new, old = asyncio.run(go(server.v1_url))
        assert all(r["_api_key"] == "key" for r in server.requests("/models"))
    assert names == ["claude-sonnet-4-5", "claude-3-5-haiku-latest"]
    assert new.capabilities == {"tools", "vision", "thinking"}
    assert old.capabilities == {"tools", "vision"}
    assert new.context_length == 200_000


def test_body_merges_roles_repairs_ids_and_drops_stripped_thinking() -> None:
    signed = {THINKING_KEY: [{"type": "thinking", "thinking": "t", "signature": "s"}]}
    messages: list[Message] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": "",
            "provider_data": signed,  # its thinking was stripped: the block is not re-sent
            "tool_calls": [
                {"id": "", "function": {"name": "ls", "arguments": {}}},
                {"id": "", "function": {"name": "read", "arguments": {"path": "a"}}},
            ],
        },
        {"role": "tool", "content": "r1", "tool_name": "ls"},
        {"role": "tool", "content": "r2", "tool_name": "read"},
        {"role": "user", "content": "[system] nudge"},
        {"role": "assistant", "content": ""},  # empty: left out
    ]
    body = chat_body(ChatRequest("m", messages, temperature=None))
    assert body["system"] == [
        {"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}
    ]
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    uses = body["messages"][1]["content"]
    assert [b["type"] for b in uses] == ["tool_use", "tool_use"]
    results = body["messages"][2]["content"]
    assert [r.get("tool_use_id") for r in results[:2]] == [uses[0]["id"], uses[1]["id"]]
    assert results[2]["text"] == "[system] nudge"
    assert results[2]["cache_control"] == {"type": "ephemeral"}
    assert "temperature" not in body and body["max_tokens"] == 8192

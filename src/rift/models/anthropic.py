"""The Anthropic Messages API client: `anthropic/<model>` or a provider of `kind: "anthropic"`.

- the system prompt travels apart, tool results are `tool_result` blocks in a *user*
  message, and same-role messages are merged (the API wants them alternating);
- signed thinking blocks are kept in the stored message's `provider_data` and re-sent
  with its tool calls (the API refuses a tool loop whose thinking was dropped);
- `cache_control` breakpoints on the system prompt and the conversation's last block,
  so each iteration of a tool loop re-reads the prefix from cache;
- effort is extended thinking with a token budget (models/thinking.py), and with
  thinking on the API allows no temperature.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, ClassVar

from msgspec import Struct, field

from rift.errors import ModelNotUsable, ServerHTTPError, StreamError
from rift.models.base import (
    ChatRequest,
    ContentDelta,
    Message,
    ModelEvent,
    ModelInfo,
    ProviderData,
    ProviderTraits,
    StreamDone,
    ThinkingDelta,
    ToolCall,
    Usage,
    call_from_text,
)
from rift.models.http import (
    drain,
    error_mid_answer,
    iter_lines,
    json_request,
    object_line,
    send_with_retry,
)
from rift.models.server import Connection, ListingServer
from rift.models.thinking import anthropic_budget

API_VERSION = "2023-06-01"
HOSTED_URL = "https://api.anthropic.com"
DEFAULT_MAX_TOKENS = 8192
CONTEXT_LENGTH = 200_000
"""Every current Claude model's window; the models endpoint may say otherwise."""
THINKING_KEY = "anthropic_thinking"
"""The `provider_data` key holding an assistant message's signed thinking blocks."""
_NO_THINKING = ("claude-3-5", "claude-3-haiku", "claude-3-opus", "claude-3-sonnet")
_STOP_REASONS = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length"}
_EPHEMERAL = {"type": "ephemeral"}


# ------------------------------------------------------------ request shape


def _image_block(image: str) -> dict[str, Any]:
    """`data:<mime>;base64,<b64>` (or bare base64, taken as PNG) → an image block."""
    media, data = "image/png", image
    if image.startswith("data:") and "," in image:
        head, data = image[5:].split(",", 1)
        media = head.split(";", 1)[0] or media
    return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}


def _user_blocks(message: Message) -> list[dict[str, Any]]:
    """Images first, then the text; an empty text block is refused by the API, so none."""
    blocks = [_image_block(i) for i in message.get("images") or []]
    if message.get("content"):
        blocks.append({"type": "text", "text": message["content"]})
    return blocks


def _signed_thinking(message: Message) -> list[dict[str, Any]]:
    """The signed thinking blocks to send back; none once the thinking was stripped."""
    data = message.get("provider_data")
    if not message.get("thinking") or not isinstance(data, dict):
        return []
    blocks = data.get(THINKING_KEY)
    return [b for b in blocks if isinstance(b, dict)] if isinstance(blocks, list) else []


class _Ids(Struct):
    """Tool-use ids: kept when valid, synthesized (and remembered) when missing."""

    pending: list[tuple[str, str]] = field(default_factory=list)
    serial: int = 0

    def call(self, given: str | None, name: str) -> str:
        self.serial += 1
        call_id = given or f"toolu_rift_{self.serial}"
        self.pending.append((call_id, name))
        return call_id

    def result(self, given: str | None, name: str | None) -> str:
        if given:
            self.pending = [p for p in self.pending if p[0] != given]
            return given
        for i, (_, called) in enumerate(self.pending):
            if called == name:
                return self.pending.pop(i)[0]
        return self.pending.pop(0)[0] if self.pending else "toolu_unknown"


def _assistant_blocks(message: Message, ids: _Ids) -> list[dict[str, Any]]:
    blocks = _signed_thinking(message)
    if message.get("content"):
        blocks.append({"type": "text", "text": message["content"]})
    ids.pending = []
    for call in message.get("tool_calls") or []:
        name = call["function"]["name"]
        blocks.append(
            {
                "type": "tool_use",
                "id": ids.call(call.get("id"), name),
                "name": name,
                "input": call["function"].get("arguments") or {},
            }
        )
    return blocks


def to_anthropic(messages: list[Message]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(system blocks, messages) in the Messages API shape, same roles merged."""
    system: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    ids = _Ids()
    for message in messages:
        role = message["role"]
        if role == "system":
            if message.get("content"):
                system.append({"type": "text", "text": message["content"]})
            continue
        if role == "assistant":
            wire_role, blocks = "assistant", _assistant_blocks(message, ids)
        elif role == "tool":
            call_id = ids.result(message.get("tool_call_id"), message.get("tool_name"))
            result = {"type": "tool_result", "tool_use_id": call_id}
            wire_role, blocks = "user", [{**result, "content": message.get("content", "")}]
        else:
            wire_role, blocks = "user", _user_blocks(message)
        if not blocks:
            continue  # an empty message: the API refuses empty content
        if out and out[-1]["role"] == wire_role:
            out[-1]["content"] += blocks
        else:
            out.append({"role": wire_role, "content": blocks})
    return system, out


def _tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI-style function definitions → Anthropic tool definitions."""
    functions = [tool.get("function") or {} for tool in tools]
    return [
        {
            "name": f.get("name", ""),
            "description": f.get("description", ""),
            "input_schema": f.get("parameters") or {"type": "object"},
        }
        for f in functions
    ]


def _mark_cache(system: list[dict[str, Any]], messages: list[dict[str, Any]]) -> None:
    """Two cache breakpoints: the end of the system prompt and the conversation tail."""
    if system:
        system[-1] = {**system[-1], "cache_control": _EPHEMERAL}
    if messages and messages[-1]["content"]:
        tail = messages[-1]["content"]
        tail[-1] = {**tail[-1], "cache_control": _EPHEMERAL}


def chat_body(request: ChatRequest) -> dict[str, Any]:
    """The `/v1/messages` body for a neutral ChatRequest."""
    system, messages = to_anthropic(request.messages)
    _mark_cache(system, messages)
    budget = anthropic_budget(request.think)
    max_tokens = request.num_predict or DEFAULT_MAX_TOKENS
    body: dict[str, Any] = {"model": request.model, "max_tokens": max_tokens, "stream": True}
    if system:
        body["system"] = system
    body["messages"] = messages
    if request.tools:
        body["tools"] = _tools(request.tools)
    if budget is not None:
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        body["max_tokens"] = max_tokens + budget  # the budget counts against max_tokens
    elif request.temperature is not None:
        body["temperature"] = min(request.temperature, 1.0)  # the API's range is 0-1
    return body


# ------------------------------------------------------------ stream parsing


class _Block(Struct):
    kind: str
    data: dict[str, Any]
    parts: list[str] = field(default_factory=list)


class _StreamState(Struct):
    """The blocks of one streamed message, by index."""

    blocks: dict[int, _Block] = field(default_factory=dict)
    signed: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    output_tokens: int = 0
    stop_reason: str | None = None
    stopped: bool = False

    def feed(self, data: dict[str, Any]) -> list[ModelEvent]:
        kind = data.get("type")
        if kind == "error":
            raise error_mid_answer(data.get("error"))
        if kind == "message_start":
            message = data.get("message")
            self._usage(message.get("usage") if isinstance(message, dict) else None)
        elif kind == "content_block_start":
            block = data.get("content_block")
            if isinstance(block, dict) and isinstance(data.get("index"), int):
                self.blocks[data["index"]] = _Block(str(block.get("type")), dict(block))
        elif kind == "content_block_delta":
            return self._delta(data)
        elif kind == "content_block_stop":
            return self._stop(data.get("index"))
        elif kind == "message_delta":
            delta = data.get("delta")
            if isinstance(delta, dict) and delta.get("stop_reason"):
                self.stop_reason = str(delta["stop_reason"])
            self._usage(data.get("usage"))
        elif kind == "message_stop":
            self.stopped = True
        return []

    def _usage(self, usage: Any) -> None:
        """Prompt tokens include the cached ones: together they are the prompt's size."""
        if not isinstance(usage, dict):
            return
        keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        prompt = sum(int(usage.get(k) or 0) for k in keys)
        self.prompt_tokens = prompt or self.prompt_tokens
        self.output_tokens = int(usage.get("output_tokens") or 0) or self.output_tokens

    def _delta(self, data: dict[str, Any]) -> list[ModelEvent]:
        block = self.blocks.get(data.get("index", -1))
        delta = data.get("delta")
        if block is None or not isinstance(delta, dict):
            return []
        kind = delta.get("type")
        if kind == "text_delta" and isinstance(delta.get("text"), str):
            return [ContentDelta(delta["text"])] if delta["text"] else []
        if kind == "thinking_delta" and isinstance(delta.get("thinking"), str):
            block.parts.append(delta["thinking"])
            return [ThinkingDelta(delta["thinking"])] if delta["thinking"] else []
        if kind == "signature_delta" and isinstance(delta.get("signature"), str):
            block.data["signature"] = block.data.get("signature", "") + delta["signature"]
        elif kind == "input_json_delta" and isinstance(delta.get("partial_json"), str):
            block.parts.append(delta["partial_json"])
        return []

    def _stop(self, index: Any) -> list[ModelEvent]:
        block = self.blocks.pop(index, None) if isinstance(index, int) else None
        if block is None:
            return []
        if block.kind == "thinking":
            self.signed.append({**block.data, "thinking": "".join(block.parts)})
        elif block.kind == "redacted_thinking":
            self.signed.append(block.data)
        elif block.kind == "tool_use":
            return [self._tool_call(block)]
        return []

    @staticmethod
    def _tool_call(block: _Block) -> ToolCall:
        call_id = block.data.get("id") if isinstance(block.data.get("id"), str) else None
        name = str(block.data.get("name") or "")
        return call_from_text(call_id, name, "".join(block.parts), block.data.get("input"))

    def finish(self) -> list[ModelEvent]:
        events: list[ModelEvent] = []
        if self.signed:
            events.append(ProviderData({THINKING_KEY: self.signed}))
        events.append(Usage(prompt_tokens=self.prompt_tokens, output_tokens=self.output_tokens))
        reason = self.stop_reason or "stop"
        events.append(StreamDone(_STOP_REASONS.get(reason, reason)))
        return events


def _payload(line: str) -> dict[str, Any] | None:
    if line.startswith(("event:", ":", "id:", "retry:")):
        return None
    return object_line(line[5:].strip() if line.startswith("data:") else line, line)


# ------------------------------------------------------------------ provider


class AnthropicProvider(ListingServer):
    """A client for the Anthropic Messages API; `base_url` ends with `/v1`."""

    TRAITS: ClassVar[ProviderTraits] = ProviderTraits(
        vision=True, thinking=True, adopts_context=True
    )
    MODELS_QUERY: ClassVar[str] = "?limit=1000"

    @classmethod
    def connect(cls, to: Connection) -> AnthropicProvider:
        """The registry's constructor; the hosted API without a key is refused here."""
        if not to.api_key and to.base_url.startswith(HOSTED_URL):
            raise ModelNotUsable(
                "no Anthropic API key: set ANTHROPIC_API_KEY (or a provider's api_key_env)"
            )
        return super().connect(to)

    @staticmethod
    def _auth_headers(api_key: str | None) -> dict[str, str]:
        return {"anthropic-version": API_VERSION, **({"x-api-key": api_key} if api_key else {})}

    async def show(self, model: str) -> ModelInfo:
        """Every Claude model calls tools and sees images; all but the oldest think."""
        entries = await self._entries()
        entry = next((e for e in entries if e["id"] == model), None)
        if entry is None and entries:
            raise ServerHTTPError(404, f"model '{model}' not found")
        capabilities = {"tools", "vision"}
        if not any(old in model for old in _NO_THINKING):
            capabilities.add("thinking")
        window = (entry or {}).get("max_input_tokens")
        context = window if isinstance(window, int) and window > 0 else CONTEXT_LENGTH
        return ModelInfo(
            name=model,
            capabilities=frozenset(capabilities),
            context_length=context,
            vision_stated=True,
        )

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[ModelEvent]:
        http_request = json_request(
            self._client, "POST", f"{self._base_url}/messages", chat_body(request), self._headers
        )
        response = await send_with_retry(self._client, http_request, base_url=self._base_url)
        state = _StreamState()
        try:
            lines = iter_lines(response)
            async for line in lines:
                data = _payload(line)
                if data is None:
                    continue
                for event in state.feed(data):
                    yield event
                if state.stopped:
                    await drain(lines)
                    break
        finally:
            await response.aclose()
        if not state.stopped and state.stop_reason is None:
            raise StreamError(
                "the model server closed the stream mid-answer: it ended before"
                " message_stop (the connection dropped)"
            )
        for event in state.finish():
            yield event

"""The OpenAI-compatible client: vLLM, llama.cpp, LM Studio, OpenRouter, OpenAI itself.

Tool-call arguments travel as JSON strings and results correlate by `tool_call_id`
(ids missing from old sessions are synthesized here). Servers disagree on the details,
so each optional key a server refuses in a 400 (`DROPPABLE_KEYS`: `stream_options`,
vLLM/SGLang's `chat_template_kwargs`, `reasoning_effort`, llama.cpp's `id_slot`, ...)
gets one retry without it. The servers report no capabilities, so "tools" is assumed,
and "thinking" unless the entry declares capabilities without it. Reading the SSE
stream is openai_stream.py's.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, ClassVar

from msgspec.structs import replace

from rift.errors import ServerHTTPError, StreamError
from rift.models.base import (
    ChatRequest,
    Message,
    ModelEvent,
    ModelInfo,
    ProviderTraits,
    StreamDone,
)
from rift.models.http import Response, drain, iter_lines, json_request, object_line, send_with_retry
from rift.models.openai_stream import StreamState, sse_payload
from rift.models.server import ListingServer
from rift.models.server_info import llama_props
from rift.models.thinking_profiles import drops_sampling, effort_level, profile_for

OPENAI_API_URL = "https://api.openai.com"
"""OpenAI itself: it refuses `chat_template_kwargs`, so that key is never sent there."""
_CONTEXT_KEYS = ("max_model_len", "context_length", "max_context_length")
DROPPABLE_KEYS = (
    "stream_options",
    "chat_template_kwargs",
    "reasoning_effort",
    "return_progress",
    "id_slot",
)
"""Keys a strict server may refuse: each is dropped (once) when a 400 names it."""


# ------------------------------------------------------------ request shape


def _image_url(image: str) -> str:
    return image if image.startswith("data:") else f"data:image/png;base64,{image}"


def _user_content(message: Message) -> str | list[dict[str, Any]]:
    """Plain text, or content parts when the message carries images."""
    images = message.get("images") or []
    if not images:
        return message.get("content", "")
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.get("content", "")}]
    parts += [{"type": "image_url", "image_url": {"url": _image_url(i)}} for i in images]
    return parts


def _claim(pending: list[tuple[str, str]], tool_name: str | None) -> str:
    """The id of the earliest unanswered call (by name when possible), removed from `pending`."""
    for i, (_, name) in enumerate(pending):
        if name == tool_name:
            return pending.pop(i)[0]
    return pending.pop(0)[0] if pending else "call_unknown"


def to_openai_messages(messages: list[Message], reasoning: bool = False) -> list[dict[str, Any]]:
    """Neutral messages in OpenAI's shape; missing ids are repaired. With `reasoning`
    (self-hosted servers, whose templates may need it between tool calls) thinking goes
    back as `reasoning_content`, so a message once sent stays byte-identical and cached."""
    out: list[dict[str, Any]] = []
    pending: list[tuple[str, str]] = []
    serial = 0
    for message in messages:
        role = message["role"]
        if role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": message.get("content", "")}
            if reasoning and message.get("thinking"):
                entry["reasoning_content"] = message["thinking"]
            calls = []
            pending = []
            for call in message.get("tool_calls") or []:
                serial += 1
                call_id = call.get("id") or f"call_{serial}"
                name = call["function"]["name"]
                arguments = json.dumps(call["function"].get("arguments") or {})
                calls.append(
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    }
                )
                pending.append((call_id, name))
            if calls:
                entry["tool_calls"] = calls
        elif role == "tool":
            call_id = message.get("tool_call_id") or _claim(pending, message.get("tool_name"))
            pending = [p for p in pending if p[0] != call_id]
            entry = {"role": "tool", "tool_call_id": call_id, "content": message.get("content", "")}
        else:
            entry = {"role": role, "content": _user_content(message)}
        out.append(entry)
    return out


def chat_body(request: ChatRequest, template_kwargs: bool = True) -> dict[str, Any]:
    """The `/chat/completions` body. `template_kwargs` False leaves out
    `chat_template_kwargs`, which only self-hosted servers understand; the thinking
    switch, the effort and the sampling follow the model's row in thinking_profiles.py."""
    body: dict[str, Any] = {
        "model": request.model,
        "messages": to_openai_messages(request.messages, reasoning=template_kwargs),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = request.tools
    profile = profile_for(request.model)
    thinking = request.think is not False  # None: the model's default, which thinks
    if request.temperature is not None and not drops_sampling(profile, thinking):
        body["temperature"] = request.temperature
    if request.num_predict is not None:
        body["max_tokens"] = request.num_predict
    wanted = request.think if isinstance(request.think, str) else None
    effort = effort_level(profile, wanted, thinking_off=not thinking)
    if effort is not None:
        body["reasoning_effort"] = effort
    template: dict[str, Any] = {}
    if profile.switch and request.think is not None:
        template["enable_thinking"] = thinking
    if profile.effort_in_template and effort is not None:
        template["reasoning_effort"] = effort
    if template_kwargs and template:
        body["chat_template_kwargs"] = template
    if request.slot is not None:
        body["id_slot"] = request.slot
    return body


# ------------------------------------------------------------------ provider


def _context_length(entry: dict[str, Any]) -> int | None:
    for key in _CONTEXT_KEYS:
        value = entry.get(key)
        if isinstance(value, int) and value > 0:
            return value
    meta = entry.get("meta")
    value = meta.get("n_ctx_train") if isinstance(meta, dict) else None
    return value if isinstance(value, int) and value > 0 else None


def _capabilities(entry: dict[str, Any]) -> frozenset[str]:
    """Always "tools"; "vision" only where the entry says so; "thinking" where it says
    so or declares nothing (unknown is not "cannot": the switch may still work)."""
    found = {"tools"}
    declared = entry.get("capabilities")
    if not isinstance(declared, list) and not entry.get("supported_parameters"):
        found.add("thinking")
    if isinstance(declared, list):
        names = {str(c).lower() for c in declared}
        if names & {"vision", "multimodal"}:  # llama.cpp says "multimodal" (--mmproj)
            found.add("vision")
        if names & {"thinking", "reasoning"}:
            found.add("thinking")
    arch = entry.get("architecture")
    if isinstance(arch, dict) and "image" in (arch.get("input_modalities") or ()):
        found.add("vision")
    if {"reasoning", "include_reasoning"} & set(entry.get("supported_parameters") or ()):
        found.add("thinking")
    return frozenset(found)


def _states_vision(entry: dict[str, Any]) -> bool:
    """Whether the entry says what the model takes in: a capabilities list (llama.cpp's
    "multimodal") or OpenRouter-style input modalities. A plain vLLM or LM Studio entry
    says neither, so the user's `vision` setting decides."""
    arch = entry.get("architecture")
    modalities = arch.get("input_modalities") if isinstance(arch, dict) else None
    return isinstance(entry.get("capabilities"), list) or isinstance(modalities, list)


class OpenAIProvider(ListingServer):
    """A client for one OpenAI-compatible server; `base_url` ends with `/v1`."""

    TRAITS: ClassVar[ProviderTraits] = ProviderTraits(
        vision=True, thinking=True, adopts_context=True
    )
    _llama_cpp = False
    """Set once `show` found llama.cpp's `/props`: it streams prompt progress when asked."""

    async def show(self, model: str) -> ModelInfo:
        """The model's entry; on a self-hosted server, also llama.cpp's `/props`, whose
        window per slot is the context really served (the entry's `n_ctx_train` is not)."""
        if self._base_url.startswith(OPENAI_API_URL):
            entries, props = await self._entries(), None
        else:
            entries, props = await asyncio.gather(
                self._entries(), llama_props(self._client, self._base_url, self._headers)
            )
        entry = next((e for e in entries if e["id"] == model), None)
        if entry is None and entries:
            raise ServerHTTPError(404, f"model '{model}' not found")
        info = (
            ModelInfo(name=model, capabilities=frozenset({"tools", "thinking"}))
            if entry is None
            else ModelInfo(
                name=model,
                capabilities=_capabilities(entry),
                context_length=_context_length(entry),
                vision_stated=_states_vision(entry),
            )
        )
        if props is None:
            return info
        self._llama_cpp = True  # it streams prompt progress when asked (return_progress)
        capabilities = set(info.capabilities) - {"thinking", "vision"}
        capabilities |= {"thinking"} if props.template_thinks else set()
        capabilities |= {"vision"} if props.vision else set()
        return replace(
            info,
            capabilities=frozenset(capabilities),
            context_length=props.n_ctx or info.context_length,
            slots=props.total_slots,
            vision_stated=True,
        )

    async def _open_stream(self, body: dict[str, Any]) -> Response:
        """Open the stream; each optional key a 400/422 names is dropped and tried once more."""
        url = f"{self._base_url}/chat/completions"
        while True:
            request = json_request(self._client, "POST", url, body, self._headers)
            try:
                return await send_with_retry(self._client, request, base_url=self._base_url)
            except ServerHTTPError as exc:
                named = [k for k in DROPPABLE_KEYS if k in body and k in exc.message]
                if exc.status not in (400, 422) or not named:
                    raise
            body = {k: v for k, v in body.items() if k not in named}

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[ModelEvent]:
        hosted = self._base_url.startswith(OPENAI_API_URL)
        body = chat_body(request, template_kwargs=not hosted)
        if self._llama_cpp:  # keeps a long prompt's read from looking like silence
            body["return_progress"] = True
        response = await self._open_stream(body)
        state = StreamState()
        saw_done = False
        try:
            lines = iter_lines(response)
            async for line in lines:
                payload = sse_payload(line)
                if payload == "[DONE]":
                    saw_done = True
                    await drain(lines)
                    break
                if payload:
                    for event in state.feed(object_line(payload)):
                        yield event
        finally:
            await response.aclose()
        if not saw_done and state.finish_reason is None and state.usage is None:
            raise StreamError(
                "the model server closed the stream mid-answer: it ended before a"
                " finish_reason or [DONE] (the connection dropped)"
            )
        for event in state.flush_calls():
            yield event
        if state.usage is not None:
            yield state.usage
        yield StreamDone(state.finish_reason or "stop")

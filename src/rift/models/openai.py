"""The OpenAI-compatible client: vLLM, llama.cpp, LM Studio, OpenRouter, OpenAI itself.

Differences from the neutral shape that this module absorbs:

- tool-call arguments travel as JSON *strings*, and tool results correlate by
  `tool_call_id`, so ids missing from old sessions are synthesized here;
- streamed tool calls arrive in pieces keyed by `index` and are only emitted
  once complete (at `finish_reason` or the end of the stream);
- servers disagree on the details: some never send `[DONE]` (the tail is
  flushed), some reject `stream_options` (one retry without it), and
  reasoning text is `reasoning_content` on some and `reasoning` on others;
- the servers report no capabilities, so "tools" is assumed, and so is
  "thinking" unless the entry declares capabilities without it: effort goes
  out as `reasoning_effort` plus vLLM/SGLang's `chat_template_kwargs`
  (`enable_thinking`), and a server that names one of those keys in a 400 gets
  one retry without it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar

from rift.config import DEFAULT_READ_TIMEOUT
from rift.errors import ServerHTTPError, StreamError
from rift.models.base import (
    ChatRequest,
    ContentDelta,
    Message,
    ModelEvent,
    ModelInfo,
    PromptProgress,
    ProviderTraits,
    StreamDone,
    ThinkingDelta,
    ToolCall,
    Usage,
)
from rift.models.http import (
    Client,
    Response,
    drain,
    iter_lines,
    json_request,
    loads_line,
    make_client,
    model_entries,
    send_with_retry,
)
from rift.models.server_info import llama_props
from rift.models.thinking import openai_effort
from rift.record import field, record, replace

OPENAI_API_URL = "https://api.openai.com"
"""OpenAI itself: it refuses `chat_template_kwargs`, so that key is never sent there."""
_CONTEXT_KEYS = ("max_model_len", "context_length", "max_context_length")
_SSE_FIELDS = ("event:", "id:", "retry:")
DROPPABLE_KEYS = ("stream_options", "chat_template_kwargs", "reasoning_effort", "return_progress")
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
    """Neutral messages in OpenAI's shape; missing ids are repaired.

    Thinking goes back as `reasoning_content` when `reasoning` is set (self-hosted
    servers: llama.cpp and vLLM templates such as DeepSeek's and gpt-oss's need it
    between tool calls, and the others ignore it); sent whenever the message carries it,
    so within a turn a message once sent stays byte-identical and the prompt cache holds
    (the core drops the thinking of earlier turns, as those templates do).
    """
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
    """The `/chat/completions` body; `DROPPABLE_KEYS` go if a server rejects them.

    `template_kwargs` False leaves out `chat_template_kwargs`, which only
    self-hosted servers (vLLM, SGLang) understand.
    """
    body: dict[str, Any] = {
        "model": request.model,
        "messages": to_openai_messages(request.messages, reasoning=template_kwargs),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = request.tools
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.num_predict is not None:
        body["max_tokens"] = request.num_predict
    effort = openai_effort(request.think)
    if effort is not None:
        body["reasoning_effort"] = effort
    if template_kwargs and request.think is not None:
        body["chat_template_kwargs"] = {"enable_thinking": request.think is not False}
    return body


# ------------------------------------------------------------ stream parsing


@record(frozen=False)
class _PartialCall:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def complete(self) -> ToolCall:
        text = "".join(self.arguments)
        try:
            parsed = json.loads(text) if text.strip() else {}
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return ToolCall(id=self.id, name=self.name, arguments=parsed, raw_arguments=text)
        return ToolCall(id=self.id, name=self.name, arguments=None, raw_arguments=text)


@record(frozen=False)
class _StreamState:
    """What one SSE stream has delivered so far."""

    calls: dict[int, _PartialCall] = field(default_factory=dict)
    usage: Usage | None = None
    finish_reason: str | None = None

    def feed(self, data: dict[str, Any]) -> list[ModelEvent]:
        error = data.get("error")
        if error:
            message = error.get("message", error) if isinstance(error, dict) else error
            raise StreamError(f"the model server reported an error mid-answer: {message}")
        progress = data.get("prompt_progress")
        events: list[ModelEvent] = []
        if isinstance(progress, dict):  # llama.cpp, asked with return_progress
            events.append(
                PromptProgress(
                    processed=int(progress.get("processed") or 0),
                    total=int(progress.get("total") or 0),
                    cached=int(progress.get("cache") or 0),
                )
            )
        usage = data.get("usage")
        if isinstance(usage, dict):
            self.usage = Usage(
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
            )
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return events
        choice = choices[0]
        delta = choice.get("delta") or choice.get("message") or {}
        if isinstance(delta, dict):
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                events.append(ThinkingDelta(reasoning))
            content = delta.get("content")
            if isinstance(content, str) and content:
                events.append(ContentDelta(content))
            for piece in delta.get("tool_calls") or ():
                if isinstance(piece, dict):
                    self._add_piece(piece)
        if choice.get("finish_reason"):
            self.finish_reason = str(choice["finish_reason"])
            events += self.flush_calls()
        return events

    def _add_piece(self, piece: dict[str, Any]) -> None:
        """Merge one tool-call fragment: id and name come first, arguments accumulate."""
        index = piece.get("index")
        piece_id = piece.get("id") if isinstance(piece.get("id"), str) else None
        if not isinstance(index, int):
            # Servers that omit `index` send whole calls; a new id means a new call.
            known = [k for k, c in self.calls.items() if c.id == piece_id]
            if known:
                index = known[0]
            elif piece_id or not self.calls:
                index = max(self.calls, default=-1) + 1
            else:
                index = max(self.calls)
        call = self.calls.setdefault(index, _PartialCall())
        if piece_id and not call.id:
            call.id = piece_id
        raw_function = piece.get("function")
        function: dict[str, Any] = raw_function if isinstance(raw_function, dict) else {}
        if isinstance(function.get("name"), str) and not call.name:
            call.name = function["name"]
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call.arguments.append(arguments)
        elif isinstance(arguments, dict):
            call.arguments.append(json.dumps(arguments))

    def flush_calls(self) -> list[ModelEvent]:
        events: list[ModelEvent] = [c.complete() for _, c in sorted(self.calls.items()) if c.name]
        self.calls.clear()
        return events


def _sse_payload(line: str) -> str | None:
    """The data of one SSE line; None for comments and fields that carry none."""
    if line.startswith("data:"):
        return line[5:].strip()
    if line.startswith(":") or line.startswith(_SSE_FIELDS):
        return None
    if line.startswith("{"):
        return line  # a bare JSON object: some servers send errors this way
    raise StreamError(f"malformed line from the model server: {line[:200]}")


def _parse_payload(payload: str) -> dict[str, Any]:
    try:
        data = loads_line(payload)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise StreamError(f"malformed line from the model server: {payload[:200]}")
    return data


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
        found |= {"vision"} & names
        if names & {"thinking", "reasoning"}:
            found.add("thinking")
    arch = entry.get("architecture")
    if isinstance(arch, dict) and "image" in (arch.get("input_modalities") or ()):
        found.add("vision")
    if {"reasoning", "include_reasoning"} & set(entry.get("supported_parameters") or ()):
        found.add("thinking")
    return frozenset(found)


class OpenAIProvider:
    """A client for one OpenAI-compatible server; `base_url` ends with `/v1`."""

    TRAITS: ClassVar[ProviderTraits] = ProviderTraits(
        vision=True, thinking=True, adopts_context=True
    )

    @classmethod
    def connect(
        cls,
        base_url: str,
        api_key: str | None,
        read_timeout: float,
        client: Client | None,
        cache_dir: Path | None,
    ) -> OpenAIProvider:
        """The registry's constructor (every provider class has one of this shape)."""
        return cls(base_url, api_key, read_timeout, client=client)

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        client: Client | None = None,
    ) -> None:
        """Args:
        base_url: e.g. `http://gpu-box:8000/v1`; a trailing `/` is dropped.
        api_key: sent as `Authorization: Bearer <key>` when set.
        read_timeout: read-idle timeout in seconds, 0 = none (ignored when `client` is given).
        client: a shared client; the provider then does not close it.
        """
        self._base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._owns_client = client is None
        self._client = client or make_client(read_timeout, tls=self._base_url.startswith("https:"))
        self._llama_cpp = False

    @property
    def base_url(self) -> str:
        return self._base_url

    async def _entries(self) -> list[dict[str, Any]]:
        url = f"{self._base_url}/models"
        return await model_entries(
            self._client, url, base_url=self._base_url, headers=self._headers
        )

    async def list_models(self) -> list[str]:
        return list(dict.fromkeys(e["id"] for e in await self._entries()))

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
                name=model, capabilities=_capabilities(entry), context_length=_context_length(entry)
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
        )

    async def _open(self, body: dict[str, Any]) -> Response:
        request = json_request(
            self._client, "POST", f"{self._base_url}/chat/completions", body, self._headers
        )
        return await send_with_retry(self._client, request, base_url=self._base_url)

    async def _open_stream(self, body: dict[str, Any]) -> Response:
        """Open the stream; each optional key a 400/422 names is dropped and tried once more."""
        while True:
            try:
                return await self._open(body)
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
        state = _StreamState()
        saw_done = False
        try:
            lines = iter_lines(response)
            async for line in lines:
                payload = _sse_payload(line)
                if payload == "[DONE]":
                    saw_done = True
                    await drain(lines)
                    break
                if payload:
                    for event in state.feed(_parse_payload(payload)):
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

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()

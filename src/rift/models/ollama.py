"""The native Ollama client: `/api/tags`, `/api/show` and streaming `/api/chat`.

The neutral `Message` shape was modelled on Ollama's, so translation is light. A stream
only counts as complete when its `done: true` line arrives; a body that simply stops
is a dropped connection, not an empty answer.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, ClassVar

from rift.errors import ServerHTTPError, StreamError
from rift.models.base import (
    ChatRequest,
    Message,
    ModelEvent,
    ModelInfo,
    ProviderTraits,
    StreamDone,
    ToolCall,
    Usage,
    call_from_text,
    text_deltas,
)
from rift.models.http import (
    Response,
    drain,
    error_mid_answer,
    iter_lines,
    json_request,
    object_line,
    request_json,
    send_with_retry,
)
from rift.models.server import Connection, ServerProvider
from rift.models.thinking import ollama_think

KEEP_ALIVE = "10m"
_KNOWN_CAPABILITIES = frozenset({"tools", "thinking", "vision"})


def _bare_base64(image: str) -> str:
    """`data:<mime>;base64,<b64>` → `<b64>`; bare base64 passes through."""
    if image.startswith("data:") and "," in image:
        return image.split(",", 1)[1]
    return image


def to_ollama_message(message: Message) -> dict[str, Any]:
    """One neutral message in Ollama's wire shape (they differ only in images)."""
    out: dict[str, Any] = {"role": message["role"], "content": message.get("content", "")}
    if message.get("thinking"):
        out["thinking"] = message["thinking"]
    if message.get("tool_calls"):
        out["tool_calls"] = [
            {
                **({"id": call["id"]} if call.get("id") else {}),
                "function": {
                    "name": call["function"]["name"],
                    "arguments": call["function"].get("arguments") or {},
                },
            }
            for call in message["tool_calls"]
        ]
    if message.get("tool_name"):
        out["tool_name"] = message["tool_name"]
    if message.get("tool_call_id"):
        out["tool_call_id"] = message["tool_call_id"]
    if message.get("images"):
        out["images"] = [_bare_base64(image) for image in message["images"]]
    return out


def chat_body(request: ChatRequest) -> dict[str, Any]:
    """The `/api/chat` request body for a neutral ChatRequest."""
    options: dict[str, Any] = {"num_ctx": request.num_ctx}
    if request.temperature is not None:
        options["temperature"] = request.temperature
    if request.num_predict is not None:
        options["num_predict"] = request.num_predict
    body: dict[str, Any] = {
        "model": request.model,
        "messages": [to_ollama_message(m) for m in request.messages],
        "stream": True,
        "keep_alive": KEEP_ALIVE,
        "options": options,
    }
    if request.tools:
        body["tools"] = request.tools
    think = ollama_think(request.think)
    if think is not None:
        body["think"] = think
    return body


def _tool_call(raw: Any) -> ToolCall | None:
    """A ToolCall from one `message.tool_calls` entry; None when it names no function."""
    if not isinstance(raw, dict) or not isinstance(raw.get("function"), dict):
        return None
    function = raw["function"]
    name = function.get("name")
    if not isinstance(name, str) or not name:
        return None
    call_id = raw.get("id") if isinstance(raw.get("id"), str) and raw.get("id") else None
    arguments = function.get("arguments")
    if isinstance(arguments, dict):
        return ToolCall(id=call_id, name=name, arguments=arguments)
    if arguments is None:
        return ToolCall(id=call_id, name=name, arguments={})
    raw_text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return call_from_text(call_id, name, raw_text)


def _parse_line(line: str) -> dict[str, Any]:
    data = object_line(line)
    if "error" in data:
        raise error_mid_answer(data["error"])
    return data


def _events_of(data: dict[str, Any]) -> list[ModelEvent]:
    """The events one NDJSON line carries, in the order they should be shown."""
    events: list[ModelEvent] = []
    message = data.get("message")
    if isinstance(message, dict):
        events += text_deltas(message.get("thinking"), message.get("content"))
        for raw in message.get("tool_calls") or ():
            call = _tool_call(raw)
            if call is not None:
                events.append(call)
    if data.get("done") is True:
        prompt = int(data.get("prompt_eval_count") or 0)
        events.append(
            Usage(
                prompt_tokens=prompt,
                output_tokens=int(data.get("eval_count") or 0),
                eval_duration_s=_seconds(data.get("eval_duration")),
                prefill_tokens=prompt,  # Ollama counts only the tokens it evaluated
                prefill_s=_seconds(data.get("prompt_eval_duration")),
            )
        )
        events.append(StreamDone(str(data.get("done_reason") or "stop")))
    return events


def _seconds(nanoseconds: object) -> float:
    """Ollama's durations are nanoseconds; 0 when absent or not a number."""
    if isinstance(nanoseconds, bool) or not isinstance(nanoseconds, int | float):
        return 0.0
    return float(nanoseconds) / 1e9


class OllamaProvider(ServerProvider):
    """A client for one Ollama server (a base URL without `/v1`)."""

    TRAITS: ClassVar[ProviderTraits] = ProviderTraits(
        reports_truncation=True, vision=True, thinking=True
    )

    @classmethod
    def connect(cls, to: Connection) -> OllamaProvider:
        """The registry's constructor (every provider class has one of this shape)."""
        return cls(to.base_url.removesuffix("/v1"), to.read_timeout, client=to.client)

    async def list_models(self) -> list[str]:
        data = await request_json(
            self._client, "GET", f"{self._base_url}/api/tags", base_url=self._base_url
        )
        models = data.get("models") if isinstance(data, dict) else None
        names: list[str] = []
        for entry in models if isinstance(models, list) else ():
            name = (entry.get("name") or entry.get("model")) if isinstance(entry, dict) else None
            if isinstance(name, str) and name:
                names.append(name)
        return names

    async def show(self, model: str) -> ModelInfo:
        data = await request_json(
            self._client,
            "POST",
            f"{self._base_url}/api/show",
            base_url=self._base_url,
            json_body={"model": model},
        )
        if not isinstance(data, dict):
            data = {}
        raw_caps = data.get("capabilities")
        capabilities = frozenset(
            c for c in (raw_caps if isinstance(raw_caps, list) else ()) if c in _KNOWN_CAPABILITIES
        )
        context_length: int | None = None
        info = data.get("model_info")
        if isinstance(info, dict):
            for key, value in info.items():
                if key.endswith(".context_length") and isinstance(value, int) and value > 0:
                    context_length = value
                    break
        return ModelInfo(
            name=model,
            capabilities=capabilities,
            context_length=context_length,
            vision_stated=isinstance(raw_caps, list),
        )

    async def _open(self, body: dict[str, Any]) -> Response:
        """Open the stream; a server that refuses a graded `think` gets one retry with
        `think: true` (only some models take a level)."""
        url = f"{self._base_url}/api/chat"
        try:
            request = json_request(self._client, "POST", url, body)
            return await send_with_retry(self._client, request, base_url=self._base_url)
        except ServerHTTPError as exc:
            graded = isinstance(body.get("think"), str)
            if exc.status != 400 or not graded or "think" not in exc.message.lower():
                raise
        request = json_request(self._client, "POST", url, {**body, "think": True})
        return await send_with_retry(self._client, request, base_url=self._base_url)

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[ModelEvent]:
        response = await self._open(chat_body(request))
        try:
            lines = iter_lines(response)
            async for line in lines:
                events = _events_of(_parse_line(line))
                for event in events:
                    yield event
                if events and isinstance(events[-1], StreamDone):
                    await drain(lines)
                    return
        finally:
            await response.aclose()
        raise StreamError(
            "the model server closed the stream mid-answer: it ended without a done line"
            " (the connection dropped)"
        )

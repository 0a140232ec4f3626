"""The seam between rift and every model server: one streaming method plus data.

A `Provider` turns a `ChatRequest` into an async stream of `ModelEvent`s. The
neutral `Message` shape (a plain JSON-able dict) is what sessions store and
what every wire format is translated from, so a conversation can move between
an Ollama server and an OpenAI-compatible one without conversion.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, ClassVar, Literal, NotRequired, Protocol, TypedDict

from msgspec import Struct, field

PREREAD_ID = "preread_"
"""Call-id prefix of the reads rift makes for a small model before its first step
(core/loop/preread.py); models/embedded_calls.py tells them from the model's own calls."""


class FunctionCall(TypedDict):
    name: str
    arguments: dict[str, Any]


class ToolCallDict(TypedDict):
    id: str
    function: FunctionCall


class Message(TypedDict):
    """One conversation message as stored in session files (OpenAI's chat shape)."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str
    thinking: NotRequired[str]
    tool_calls: NotRequired[list[ToolCallDict]]
    tool_name: NotRequired[str]
    tool_call_id: NotRequired[str]
    images: NotRequired[list[str]]
    provider_data: NotRequired[Any]
    """Raw wire blocks a provider must send back verbatim (Anthropic's signed thinking)."""


# ---------------------------------------------------------------- model events


class ContentDelta(Struct, frozen=True):
    """A piece of the assistant's reply text."""

    text: str


class ThinkingDelta(Struct, frozen=True):
    """A piece of the model's reasoning (thinking models only)."""

    text: str


class ToolCall(Struct, frozen=True):
    """One complete tool call, assembled from however many chunks carried it; `arguments`
    is None when the model sent text that is not a JSON object (`raw_arguments` holds it)."""

    id: str | None
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str = ""


def call_from_text(call_id: str | None, name: str, text: str, blank: Any = None) -> ToolCall:
    """A call whose arguments arrived as JSON text (blank text: `blank`, else {}); text that
    is not a JSON object leaves `arguments` None for the model to be told."""
    try:
        parsed = json.loads(text) if text.strip() else blank or {}
    except ValueError:
        parsed = None
    arguments = parsed if isinstance(parsed, dict) else None
    return ToolCall(id=call_id, name=name, arguments=arguments, raw_arguments=text)


class Usage(Struct, frozen=True):
    """Token counts the server reported for this request."""

    prompt_tokens: int = 0
    output_tokens: int = 0
    eval_duration_s: float = 0.0
    """Seconds the server spent generating; 0 when it did not say (tok/s is then client-side)."""
    prefill_tokens: int = 0
    """Prompt tokens the server evaluated (not found in its cache); 0 when it did not say."""
    prefill_s: float = 0.0
    """Seconds it spent evaluating them; 0 when it did not say."""
    cached_tokens: int = 0
    """Prompt tokens it took from its cache instead; 0 when none or not said."""


class PromptProgress(Struct, frozen=True):
    """The server is still reading the prompt (llama.cpp's `prompt_progress`)."""

    processed: int
    """Prompt tokens in the server's cache so far, the `cached` ones included."""
    total: int
    cached: int = 0
    time_ms: int = 0
    """Milliseconds the server has spent reading this prompt (0 when it did not say)."""

    @property
    def tokens_per_sec(self) -> float:
        """Reading speed over the tokens really read (the cached ones cost nothing)."""
        read = self.processed - self.cached
        return round(read * 1000 / self.time_ms, 1) if read > 0 and self.time_ms > 0 else 0.0


class StreamDone(Struct, frozen=True):
    """The stream ended normally."""

    reason: str = "stop"


class ProviderData(Struct, frozen=True):
    """Wire data the stored assistant message must carry back verbatim (its
    `provider_data`): Anthropic's signed thinking blocks."""

    data: Any


ModelEvent = (
    ContentDelta | ThinkingDelta | ToolCall | Usage | StreamDone | ProviderData | PromptProgress
)


def text_deltas(thinking: Any, content: Any) -> list[ContentDelta | ThinkingDelta]:
    """What one streamed piece says: its reasoning, then its reply text (each when it is a
    non-empty string; a server sends null, "" or nothing for a part a piece lacks)."""
    deltas: list[ContentDelta | ThinkingDelta] = []
    if isinstance(thinking, str) and thinking:
        deltas.append(ThinkingDelta(thinking))
    if isinstance(content, str) and content:
        deltas.append(ContentDelta(content))
    return deltas


# ------------------------------------------------------------- requests, info

Reasoning = bool | str | None
"""The thinking control of one request: server default, off, on, or on at an effort level."""


class ChatRequest(Struct, frozen=True):
    """Everything one chat call needs; providers translate it to their wire format."""

    model: str
    messages: list[Message]
    tools: list[dict[str, Any]] = field(default_factory=list)
    """OpenAI-style function definitions: {"type": "function", "function": {...}}."""
    num_ctx: int = 32768
    temperature: float | None = 0.2
    think: Reasoning = None
    """None: the server's default; False: off; True: on; an effort level from
    `EFFORT_LEVELS`: on at that level (models/thinking.py)."""
    num_predict: int | None = None
    slot: int | None = None
    """The server slot (llama.cpp's `id_slot`) holding this conversation's cached prompt;
    None lets the server choose."""


class ModelInfo(Struct, frozen=True):
    """What `show(model)` learned: capabilities are data, not probed elsewhere."""

    name: str
    capabilities: frozenset[str] = frozenset()
    """Subset of {"tools", "thinking", "vision"}."""
    context_length: int | None = None
    """The window the server serves this model with, where it says (else its maximum)."""
    slots: int | None = None
    """Requests the server runs at once (llama.cpp's `-np`), where it says."""
    vision_stated: bool = False
    """The server said whether the model takes images; when False the user's
    `model_settings.<name>.vision` decides (registry.py)."""


class ProviderTraits(Struct, frozen=True):
    """What a kind of provider is like, declared by its class so the core asks instead
    of comparing kind names."""

    small_model: bool = False
    """The model is small: a narrow tool set and the short system prompt suit it."""
    reports_truncation: bool = False
    """The server cuts an overflowing prompt silently but reports its real size, so a
    prompt that filled the window means a front-truncated conversation."""
    vision: bool = False
    """The wire format carries images (the model must still report "vision")."""
    thinking: bool = False
    """The wire format carries a thinking switch or effort level."""
    adopts_context: bool = False
    """The server's reported context length is the budget to use (no KV cache to size),
    so preflight may raise num_ctx up to it."""


class Provider(Protocol):
    """A model server client. Implementations: ollama, openai, anthropic, embedded."""

    TRAITS: ClassVar[ProviderTraits]

    @property
    def base_url(self) -> str: ...

    def stream_chat(self, request: ChatRequest) -> AsyncIterator[ModelEvent]:
        """Stream one chat completion. Raises `rift.errors.ModelError` subclasses."""
        ...

    async def list_models(self) -> list[str]: ...

    async def show(self, model: str) -> ModelInfo:
        """Capabilities and context length; raises ServerHTTPError(404) for unknown models."""
        ...

    async def aclose(self) -> None: ...


async def reply_text(provider: Provider, request: ChatRequest) -> str:
    """The whole text of the model's reply to `request` (its thinking and calls left out)."""
    parts: list[str] = []
    async for event in provider.stream_chat(request):
        if isinstance(event, ContentDelta):
            parts.append(event.text)
    return "".join(parts)

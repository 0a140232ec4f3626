"""The seam between rift and every model server: one streaming method plus data.

A `Provider` turns a `ChatRequest` into an async stream of `ModelEvent`s. The
neutral `Message` shape (a plain JSON-able dict) is what sessions store and
what every wire format is translated from, so a conversation can move between
an Ollama server and an OpenAI-compatible one without conversion.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, Protocol, TypedDict


class FunctionCall(TypedDict):
    name: str
    arguments: dict[str, Any]


class ToolCallDict(TypedDict):
    id: str
    function: FunctionCall


class Message(TypedDict):
    """One conversation message as stored in session files (reference notes, section 3.3)."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str
    thinking: NotRequired[str]
    tool_calls: NotRequired[list[ToolCallDict]]
    tool_name: NotRequired[str]
    tool_call_id: NotRequired[str]
    images: NotRequired[list[str]]


# ---------------------------------------------------------------- model events


@dataclass(frozen=True, slots=True)
class ContentDelta:
    """A piece of the assistant's reply text."""

    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """A piece of the model's reasoning (thinking models only)."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One complete tool call, assembled from however many chunks carried it.

    `arguments` is None when the model sent text that is not a JSON object;
    `raw_arguments` then holds that text so the caller can report it.
    """

    id: str | None
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str = ""


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts the server reported for this request."""

    prompt_tokens: int = 0
    output_tokens: int = 0
    eval_duration_s: float = 0.0
    """Seconds the server spent generating; 0 when it did not say (tok/s is then client-side)."""


@dataclass(frozen=True, slots=True)
class StreamDone:
    """The stream ended normally."""

    reason: str = "stop"


ModelEvent = ContentDelta | ThinkingDelta | ToolCall | Usage | StreamDone


# ------------------------------------------------------------- requests, info


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """Everything one chat call needs; providers translate it to their wire format."""

    model: str
    messages: list[Message]
    tools: list[dict[str, Any]] = field(default_factory=list)
    """OpenAI-style function definitions: {"type": "function", "function": {...}}."""
    num_ctx: int = 32768
    temperature: float | None = 0.2
    think: bool | None = None
    """None leaves the server default; False is sent only to models without thinking."""
    num_predict: int | None = None


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """What `show(model)` learned: capabilities are data, not probed elsewhere."""

    name: str
    capabilities: frozenset[str] = frozenset()
    """Subset of {"tools", "thinking", "vision"}."""
    context_length: int | None = None


class Provider(Protocol):
    """A model server client. Implementations: ollama, openai, embedded."""

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

"""One model call: stream it, emit its deltas, and hand back the assembled reply.

Split from the turn loop so `turn.py` reads as the loop alone. Content and
thinking are emitted the moment they arrive (front ends render them live);
they are also collected into lists and joined once, because appending to a
string attribute 100,000 times would copy the reply 100,000 times.

A reply is bounded: the read-idle timeout only catches silence, and a model
caught in a loop (or a server that ignores `num_predict`) can stream text or
reasoning forever. Once content plus thinking pass twice the context window
(`REPLY_WINDOWS * num_ctx` tokens, estimated as 4 characters each) the stream is
closed with a `StreamError`: a reply that long could not even be sent back to
the model. A slow trickle stays bounded by the same count; a client that will
not wait that long cancels the turn.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Collection
from typing import Any

from msgspec import Struct, field
from msgspec.structs import replace

from rift.core.loop import hardening
from rift.core.loop.textcalls import ContentGate, Kind
from rift.errors import StreamError
from rift.events import Content, Event, Info, PrefillProgress, Thinking, Warning
from rift.models import repetition
from rift.models.base import (
    ChatRequest,
    ContentDelta,
    Message,
    PromptProgress,
    Provider,
    ProviderData,
    ThinkingDelta,
    ToolCall,
    ToolCallDict,
    Usage,
)
from rift.text.hygiene import scrub, scrub_json

REPLY_WINDOWS = 2
"""A reply may be this many context windows long before it counts as runaway."""
RAW_ARGUMENTS_KEPT = 200
"""Characters of unparseable tool arguments kept in the history that is sent back."""
_PENDING_MAX = 64
PROGRESS_AFTER_S = 3.0
"""A prompt read that has taken this long gets a progress note (llama.cpp reports it)."""
PROGRESS_EVERY_S = 10.0


class _Repeating(Exception):
    """The reply's content or thinking started repeating itself (models/repetition.py)."""


class Reply(Struct, dict=True):
    """What the model said in one call."""

    content: str = ""
    thinking: str = ""
    calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    generation_seconds: float = 0.0
    """Server-reported decode time, else the client-side time from first token to end."""
    provider_data: Any = None


class _Collector(Struct, dict=True):
    emit: Callable[[Event], None]
    max_tokens: int
    gate: ContentGate
    """Holds back tool calls written as text, and routes `<think>` text to thinking."""
    limits: repetition.Limits = repetition.TIGHT
    parts: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    provider_data: Any = None
    stripped: bool = False
    first_token: float = 0.0
    chars: int = 0
    tails: dict[str, str] = field(default_factory=dict)
    """The last characters of content and of thinking, for the repetition check."""
    pending: dict[str, list[str]] = field(default_factory=dict)
    """Deltas not yet added to their kind's tail: joined at the next check, not each
    copied into a 2,400-character tail as it arrives."""
    unchecked: int = 0
    started: float = field(default_factory=time.monotonic)
    noted: float = 0.0
    """When the last prompt-progress note went out."""

    def _watch(self, kind: str, text: str) -> None:
        pending = self.pending.setdefault(kind, [])
        pending.append(text)
        self.unchecked += len(text)
        if self.unchecked >= repetition.CHECK_EVERY:
            self.unchecked = 0
            if repetition.repeating_period(self._tail(kind, pending), self.limits):
                raise _Repeating(kind)
        elif len(pending) >= _PENDING_MAX:
            self._tail(kind, pending)  # the other kind's deltas may never trigger a check

    def _tail(self, kind: str, pending: list[str]) -> str:
        """The kind's tail brought up to date (the same text as growing it delta by delta)."""
        tail = (self.tails.get(kind, "") + "".join(pending))[-self.limits.tail :]
        self.tails[kind] = tail
        pending.clear()
        return tail

    def _count(self, text: str) -> None:
        self.chars += len(text)
        if self.chars > 4 * self.max_tokens:
            raise StreamError(
                f"the model's reply passed about {self.max_tokens} tokens (twice the context"
                " window) without ending, so rift stopped it; the model is probably looping"
            )

    def show(self, kind: Kind, text: str) -> None:
        """Text the gate let through: into the reply and onto the transcript."""
        if kind == "content":
            self.parts.append(text)
            self.emit(Content(text=text))
        else:
            self.thinking.append(text)
            self.emit(Thinking(text=text))
        self._watch(kind, text)

    def _progress(self, event: PromptProgress) -> None:
        """Every reading as `prefill_progress`, and a note now and then while a long prompt
        is read, so a quiet wait is explained."""
        self.emit(PrefillProgress(event.processed, event.total, event.cached, event.tokens_per_sec))
        now = time.monotonic()
        if event.processed >= event.total or now - self.started < PROGRESS_AFTER_S:
            return
        if self.noted and now - self.noted < PROGRESS_EVERY_S:
            return
        self.noted = now
        cached = f" ({event.cached:,} from its cache)" if event.cached else ""
        self.emit(
            Info(
                f"the model server is reading the prompt: {event.processed:,} of"
                f" {event.total:,} tokens{cached}"
            )
        )

    def take(self, event: object) -> None:
        if isinstance(event, ContentDelta):
            self._count(event.text)
            text, hit = hardening.strip_template_tokens(scrub(event.text))
            self.stripped = self.stripped or hit
            self.first_token = self.first_token or time.monotonic()
            if text:
                for kind, piece in self.gate.feed(text):
                    self.show(kind, piece)
                if self.gate.looping:
                    raise _Repeating("tool calls")
        elif isinstance(event, ThinkingDelta):
            self._count(event.text)
            self.first_token = self.first_token or time.monotonic()
            self.show("thinking", scrub(event.text))
        elif isinstance(event, ToolCall):
            self.calls.append(
                replace(
                    event,
                    name=scrub(event.name),
                    arguments=scrub_json(event.arguments),
                    raw_arguments=scrub(event.raw_arguments),
                )
            )
        elif isinstance(event, Usage):
            self.usage = event
        elif isinstance(event, PromptProgress):
            self._progress(event)
        elif isinstance(event, ProviderData):
            self.provider_data = event.data


async def stream_reply(
    provider: Provider,
    request: ChatRequest,
    known_tools: Collection[str],
    emit: Callable[[Event], None],
    counters: Counter[str],
    limits: repetition.Limits = repetition.TIGHT,
) -> Reply:
    """Run one chat call to its end, repairing what local models get wrong.

    `limits` says how much repetition ends the reply: tight for small models, which loop,
    wide for the rest, whose answers may honestly repeat a line many times."""
    collector = _Collector(
        emit,
        max_tokens=REPLY_WINDOWS * request.num_ctx,
        gate=ContentGate(known_tools),
        limits=limits,
    )
    started = time.monotonic()
    stream = provider.stream_chat(request)
    repeated = ""
    try:
        async for event in stream:
            collector.take(event)
        for kind, piece in collector.gate.finish():
            collector.show(kind, piece)
    except _Repeating as loop:
        repeated = str(loop)
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()  # cancelled or cut mid-stream: release the HTTP connection now
    reply = Reply(
        content="".join(collector.parts),
        thinking="".join(collector.thinking),
        calls=collector.calls,
        usage=collector.usage,
        provider_data=collector.provider_data,
    )
    if repeated:
        counters["repetition_stops"] += 1
        if repeated == "tool calls":  # the gate kept each call once; no text to cut
            emit(Warning("the model began repeating its tool calls; rift stopped the reply"))
        else:
            _cut_repetition(reply, repeated, limits)
            emit(Warning(f"the model's {repeated} began repeating itself; rift stopped the reply"))
    usage = collector.usage
    reply.generation_seconds = (usage.eval_duration_s if usage else 0.0) or (
        time.monotonic() - (collector.first_token or started)
    )
    if collector.stripped:
        counters["template_strips"] += 1
        emit(Warning("stripped leaked template tokens from output"))
    if not reply.calls and collector.gate.calls:
        counters["textual_recoveries"] += 1
        reply.calls = collector.gate.calls
        emit(Warning("model emitted a textual tool call; recovered it"))
    elif not reply.calls and reply.content:
        recovered = hardening.recover_textual_tool_calls(reply.content, known_tools)
        if recovered:
            counters["textual_recoveries"] += 1
            reply.calls, reply.content = recovered, ""
            emit(Warning("model emitted a textual tool call; recovered it"))
    return reply


def _cut_repetition(reply: Reply, kind: str, limits: repetition.Limits) -> None:
    """One copy of the repeated text stays, so the stored reply says what went wrong."""
    text = reply.content if kind == "content" else reply.thinking
    cut = repetition.cut_repetition(text, repetition.repeating_period(text, limits))
    if kind == "content":
        reply.content = cut + "\n[rift: the rest of this reply repeated the line above; cut]"
    else:
        reply.thinking = cut


def assistant_message(reply: Reply, index: int) -> Message:
    """The stored form of a reply; calls without an id get `call_<index>_<i>` (in place)."""
    message: Message = {"role": "assistant", "content": reply.content}
    if reply.thinking:
        message["thinking"] = reply.thinking
    if reply.provider_data is not None:
        message["provider_data"] = reply.provider_data
    if reply.calls:
        reply.calls = [
            ToolCall(
                id=c.id or f"call_{index}_{i}",
                name=c.name,
                arguments=c.arguments,
                raw_arguments=c.raw_arguments,
            )
            for i, c in enumerate(reply.calls)
        ]
        message["tool_calls"] = [_call_dict(c) for c in reply.calls]
    return message


def _call_dict(call: ToolCall) -> ToolCallDict:
    args = call.arguments if call.arguments is not None else {"raw": _capped(call.raw_arguments)}
    return {"id": call.id or "", "function": {"name": call.name, "arguments": args}}


def _capped(raw: str) -> str:
    """Broken arguments as kept in the history: a runaway's 8,000 characters would be
    re-sent on every call, and re-read by a model that copies what it sees."""
    if len(raw) <= RAW_ARGUMENTS_KEPT:
        return raw
    return f"{raw[:RAW_ARGUMENTS_KEPT]}… [{len(raw) - RAW_ARGUMENTS_KEPT:,} more characters cut]"

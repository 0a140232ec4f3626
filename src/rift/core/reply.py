"""One model call: stream it, emit its deltas, and hand back the assembled reply.

Split from the turn loop so `turn.py` reads as the loop alone. Content and
thinking are emitted the moment they arrive (front ends render them live);
they are also collected into lists and joined once, because appending to a
string attribute 100,000 times would copy the reply 100,000 times.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from rift.core import hardening
from rift.core.events import Content, Event, Thinking, Warning
from rift.models.base import (
    ChatRequest,
    ContentDelta,
    Message,
    Provider,
    ThinkingDelta,
    ToolCall,
    ToolCallDict,
    Usage,
)


@dataclass
class Reply:
    """What the model said in one call."""

    content: str = ""
    thinking: str = ""
    calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    generation_seconds: float = 0.0
    """Server-reported decode time, else the client-side time from first token to end."""


@dataclass
class _Collector:
    emit: Callable[[Event], None]
    parts: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    stripped: bool = False
    first_token: float = 0.0

    def take(self, event: object) -> None:
        if isinstance(event, ContentDelta):
            text, hit = hardening.strip_template_tokens(event.text)
            self.stripped = self.stripped or hit
            self.first_token = self.first_token or time.monotonic()
            if text:
                self.parts.append(text)
                self.emit(Content(text=text))
        elif isinstance(event, ThinkingDelta):
            self.first_token = self.first_token or time.monotonic()
            self.thinking.append(event.text)
            self.emit(Thinking(text=event.text))
        elif isinstance(event, ToolCall):
            self.calls.append(event)
        elif isinstance(event, Usage):
            self.usage = event


async def stream_reply(
    provider: Provider,
    request: ChatRequest,
    known_tools: Collection[str],
    emit: Callable[[Event], None],
    counters: Counter[str],
) -> Reply:
    """Run one chat call to its end, repairing what local models get wrong."""
    collector = _Collector(emit)
    started = time.monotonic()
    stream = provider.stream_chat(request)
    try:
        async for event in stream:
            collector.take(event)
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()  # cancelled mid-stream: release the HTTP connection now
    reply = Reply(
        content="".join(collector.parts),
        thinking="".join(collector.thinking),
        calls=collector.calls,
        usage=collector.usage,
    )
    usage = collector.usage
    reply.generation_seconds = (usage.eval_duration_s if usage else 0.0) or (
        time.monotonic() - (collector.first_token or started)
    )
    if collector.stripped:
        counters["template_strips"] += 1
        emit(Warning("stripped leaked template tokens from output"))
    if not reply.calls and reply.content:
        recovered = hardening.recover_textual_tool_calls(reply.content, known_tools)
        if recovered:
            counters["textual_recoveries"] += 1
            reply.calls, reply.content = recovered, ""
            emit(Warning("model emitted a textual tool call; recovered it"))
    return reply


def assistant_message(reply: Reply, index: int) -> Message:
    """The stored form of a reply; calls without an id get `call_<index>_<i>` (in place)."""
    message: Message = {"role": "assistant", "content": reply.content}
    if reply.thinking:
        message["thinking"] = reply.thinking
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
    args = call.arguments if call.arguments is not None else {"raw": call.raw_arguments}
    return {"id": call.id or "", "function": {"name": call.name, "arguments": args}}

"""What the fake model server answers: the script's queued turns, and the three wire
formats (Ollama, OpenAI, Anthropic) a turn is streamed in."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

EXHAUSTED_TEXT = "(script exhausted)"
DEFAULT_MODELS: list[dict[str, Any]] = [
    {"name": "fake-model", "capabilities": ["tools"], "context_length": 32768}
]


# ------------------------------------------------------------------- script


class Script:
    """The turns still to serve; thread-safe because requests arrive concurrently."""

    def __init__(self, data: dict[str, Any]) -> None:
        models = data.get("models")
        self.models: list[dict[str, Any]] = models if isinstance(models, list) else DEFAULT_MODELS
        turns = data.get("turns")
        self._turns = [dict(t) for t in turns] if isinstance(turns, list) else []
        self._left = [max(1, int(t.get("repeat", 1))) for t in self._turns]
        self.list_status = int(data.get("list_status") or 0)
        self.wire = str(data["wire"]) if isinstance(data.get("wire"), str) else None
        self.data = data
        self._lock = threading.Lock()

    def extra(self, path: str) -> Any:
        """The scripted answer to llama.cpp's `/props` or `/slots`; None when not scripted."""
        return self.data.get(path.rsplit("/", 1)[-1])

    def model(self, name: str) -> dict[str, Any] | None:
        return next((m for m in self.models if m.get("name") == name), None)

    def take(self, haystacks: list[str], keep: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The turn for a request; it stays unconsumed when `keep(turn)` is true."""
        with self._lock:
            chosen = None
            for i, turn in enumerate(self._turns):
                needle = turn.get("match")
                if self._left[i] and needle and any(needle in h for h in haystacks):
                    chosen = i
                    break
            if chosen is None:
                unmatched = (i for i, t in enumerate(self._turns) if self._left[i])
                chosen = next((i for i in unmatched if not self._turns[i].get("match")), None)
            if chosen is None:
                return {"content": EXHAUSTED_TEXT}
            turn = self._turns[chosen]
            if not keep(turn):
                self._left[chosen] -= 1
            return turn


def obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _chunks(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value] if isinstance(value, list) else []


# ------------------------------------------------------------- wire formats


_ENCODER = json.JSONEncoder(separators=(",", ":"))
dumps = _ENCODER.encode
"""Compact JSON, as `json.dumps(value, separators=...)` gives it without building an
encoder per call (which cost more than the rest of a streamed line)."""


class OllamaWire:
    content_type = "application/x-ndjson"
    error_shape = "string"

    def __init__(self, model: str, body: dict[str, Any]) -> None:
        self._model = model
        self._head = '{"model":' + dumps(model) + ',"created_at":"2025-01-01T00:00:00Z","message":'

    def _message(self, message: dict[str, Any], done: str = "false") -> bytes:
        return (self._head + dumps(message) + ',"done":' + done + "}\n").encode()

    def thinking(self, text: str) -> bytes:
        return self._message({"role": "assistant", "content": "", "thinking": text})

    def content(self, text: str) -> bytes:
        return (
            self._head + '{"role":"assistant","content":' + dumps(text) + '},"done":false}\n'
        ).encode()

    def tool_call(self, index: int, call: dict[str, Any]) -> list[bytes]:
        entry: dict[str, Any] = {
            "function": {
                "index": index,
                "name": call.get("name", ""),
                "arguments": call.get("arguments", {}),
            }
        }
        if call.get("id"):
            entry["id"] = call["id"]
        return [self._message({"role": "assistant", "content": "", "tool_calls": [entry]})]

    def end(self, turn: dict[str, Any], usage: dict[str, Any]) -> list[bytes]:
        final = {
            "model": self._model,
            "created_at": "2025-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": usage["prompt_tokens"],
            "eval_count": usage["output_tokens"],
            "eval_duration": int(usage["eval_duration_s"] * 1e9),
        }
        timings = turn.get("timings")
        if isinstance(timings, dict) and "prompt_ms" in timings:
            final["prompt_eval_duration"] = int(float(timings["prompt_ms"]) * 1e6)
        return [(dumps(final) + "\n").encode()]


class OpenAIWire:
    content_type = "text/event-stream"
    error_shape = "object"

    def __init__(self, model: str, body: dict[str, Any]) -> None:
        self._head = (
            'data: {"id":"chatcmpl-fake","object":"chat.completion.chunk","created":0,'
            '"model":' + dumps(model) + ',"choices":[{"index":0,"delta":'
        )
        options = body.get("stream_options")
        self._usage = isinstance(options, dict) and bool(options.get("include_usage"))
        self._serial = 0
        self.progress = bool(body.get("return_progress"))

    def prompt_progress(self, processed: int, total: int, cached: int, time_ms: int = 1) -> bytes:
        progress = {"total": total, "cache": cached, "processed": processed, "time_ms": time_ms}
        data = {"id": "chatcmpl-fake", "choices": [], "prompt_progress": progress}
        return ("data: " + dumps(data) + "\n\n").encode()

    def _delta(self, delta: str, finish: str = "null") -> bytes:
        return (self._head + delta + ',"finish_reason":' + finish + "}]}\n\n").encode()

    def thinking(self, text: str) -> bytes:
        return self._delta('{"reasoning_content":' + dumps(text) + "}")

    def content(self, text: str) -> bytes:
        return self._delta('{"content":' + dumps(text) + "}")

    def tool_call(self, index: int, call: dict[str, Any]) -> list[bytes]:
        self._serial += 1
        arguments = call.get("arguments", {})
        text = arguments if isinstance(arguments, str) else dumps(arguments)
        half = len(text) // 2
        first = {
            "index": index,
            "id": call.get("id") or f"call_fake_{self._serial}",
            "type": "function",
            "function": {"name": call.get("name", ""), "arguments": text[:half]},
        }
        rest = {"index": index, "function": {"arguments": text[half:]}}
        return [self._delta(dumps({"tool_calls": [piece]})) for piece in (first, rest)]

    def end(self, turn: dict[str, Any], usage: dict[str, Any]) -> list[bytes]:
        reason = turn.get("finish_reason") or ("tool_calls" if turn.get("tool_calls") else "stop")
        lines = [self._delta("{}", dumps(reason))]
        last: dict[str, Any] = {"id": "chatcmpl-fake", "choices": []}
        if self._usage:
            last["usage"] = {
                "prompt_tokens": usage["prompt_tokens"],
                "completion_tokens": usage["output_tokens"],
                "total_tokens": usage["prompt_tokens"] + usage["output_tokens"],
            }
        if isinstance(turn.get("timings"), dict):  # llama-server: on the final chunk
            last["timings"] = turn["timings"]
        if len(last) > 2:
            lines.append(("data: " + dumps(last) + "\n\n").encode())
        if not turn.get("omit_done"):
            lines.append(b"data: [DONE]\n\n")
        return lines


class AnthropicWire:
    """Typed SSE events; blocks open and close as the kind of chunk changes."""

    content_type = "text/event-stream"
    error_shape = "object"

    def __init__(self, model: str, body: dict[str, Any]) -> None:
        self._model = model
        self._index = -1
        self._open: str | None = None

    @staticmethod
    def _event(kind: str, payload: dict[str, Any]) -> bytes:
        return f"event: {kind}\ndata: {dumps({'type': kind, **payload})}\n\n".encode()

    def begin(self, prompt_tokens: int) -> list[bytes]:
        message: dict[str, Any] = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": self._model,
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": prompt_tokens, "output_tokens": 1},
        }
        return [self._event("message_start", {"message": message}), self._event("ping", {})]

    def _close(self) -> bytes:
        if self._open is None:
            return b""
        out = b""
        if self._open == "thinking":
            delta = {"type": "signature_delta", "signature": "fake-signature"}
            out = self._event("content_block_delta", {"index": self._index, "delta": delta})
        self._open = None
        return out + self._event("content_block_stop", {"index": self._index})

    def _switch(self, kind: str, block: dict[str, Any]) -> bytes:
        if self._open == kind:
            return b""
        out = self._close()
        self._index += 1
        self._open = kind
        start = {"index": self._index, "content_block": block}
        return out + self._event("content_block_start", start)

    def thinking(self, text: str) -> bytes:
        head = self._switch("thinking", {"type": "thinking", "thinking": "", "signature": ""})
        delta = {"type": "thinking_delta", "thinking": text}
        return head + self._event("content_block_delta", {"index": self._index, "delta": delta})

    def content(self, text: str) -> bytes:
        head = self._switch("text", {"type": "text", "text": ""})
        delta = {"type": "text_delta", "text": text}
        return head + self._event("content_block_delta", {"index": self._index, "delta": delta})

    def tool_call(self, index: int, call: dict[str, Any]) -> list[bytes]:
        arguments = call.get("arguments", {})
        text = arguments if isinstance(arguments, str) else dumps(arguments)
        block = {
            "type": "tool_use",
            "id": call.get("id") or f"toolu_fake_{index + 1}",
            "name": call.get("name", ""),
            "input": {},
        }
        head = self._close()
        self._index += 1
        lines = [
            head
            + self._event("content_block_start", {"index": self._index, "content_block": block})
        ]
        half = len(text) // 2
        for piece in (text[:half], text[half:]):
            delta = {"type": "input_json_delta", "partial_json": piece}
            lines.append(self._event("content_block_delta", {"index": self._index, "delta": delta}))
        lines.append(self._event("content_block_stop", {"index": self._index}))
        return lines

    def end(self, turn: dict[str, Any], usage: dict[str, Any]) -> list[bytes]:
        reason = turn.get("finish_reason") or ("tool_use" if turn.get("tool_calls") else "end_turn")
        delta = {
            "delta": {"stop_reason": reason},
            "usage": {"output_tokens": usage["output_tokens"]},
        }
        return [
            self._close() + self._event("message_delta", delta),
            self._event("message_stop", {}),
        ]


Wire = OllamaWire | OpenAIWire | AnthropicWire


def _usage(turn: dict[str, Any], raw_size: int, chunks: int) -> dict[str, Any]:
    given = obj(turn.get("usage"))
    output = int(given.get("output_tokens", chunks))
    return {
        "prompt_tokens": int(given.get("prompt_tokens", raw_size // 4)),
        "output_tokens": output,
        "eval_duration_s": float(given.get("eval_duration_s", output * 0.001)),
    }


def _sequence_lines(wire: Wire, sequence: dict[str, Any]) -> Iterator[bytes]:
    """`content_sequence`: numbered words, so no two neighbouring deltas are alike."""
    prefix = str(sequence.get("prefix", "w"))
    for i in range(int(sequence.get("count", 0))):
        yield wire.content(f"{prefix}{i} ")


def turn_lines(turn: dict[str, Any], wire: Wire, raw_size: int) -> Iterator[bytes]:
    """Every line of a streamed turn, in order; lazily, so 100k chunks cost no memory."""
    thinking, content = _chunks(turn.get("thinking")), _chunks(turn.get("content"))
    repeat, sequence = obj(turn.get("content_repeat")), obj(turn.get("content_sequence"))
    count = int(repeat.get("count", 0))
    if isinstance(wire, AnthropicWire):
        yield from wire.begin(_usage(turn, raw_size, 0)["prompt_tokens"])
    if isinstance(wire, OpenAIWire) and wire.progress:
        yield from (wire.prompt_progress(*p) for p in turn.get("prompt_progress") or ())
    yield from (wire.thinking(t) for t in thinking)
    yield from (wire.content(t) for t in content)
    if count:
        line = wire.content(str(repeat.get("text", "x")))
        for _ in range(count):
            yield line
    yield from _sequence_lines(wire, sequence)
    if isinstance(turn.get("garbage"), str):
        yield turn["garbage"].encode() + b"\n"
    for key, make in (("never_end_thinking", wire.thinking), ("never_end", wire.content)):
        if turn.get(key):
            line = make(turn[key] if isinstance(turn[key], str) else " ")
            while True:
                yield line
    if turn.get("truncate"):
        return
    for index, call in enumerate(turn.get("tool_calls") or []):
        yield from wire.tool_call(index, call)
    chunks = len(thinking) + len(content) + count + int(sequence.get("count", 0))
    last = wire.end(turn, _usage(turn, raw_size, chunks))
    if turn.get("final_newline") is False:
        last[-1] = last[-1].rstrip(b"\n")
    yield from last

"""A scripted fake model server that speaks Ollama's, OpenAI's and Anthropic's wire formats.

It is a real HTTP server on 127.0.0.1 (stdlib only), so tests drive rift's
actual HTTP stack: retries, timeouts, chunked streams and dropped connections
all happen for real. It ships in the package so that integration tests,
benchmarks and people reproducing a bug can all use the same one.

Endpoints (matched on the path *suffix*, so `/coding/v1/models` works too):

    GET  .../api/tags            Ollama model list
    POST .../api/show            Ollama model details; unknown model → 404
    POST .../api/chat            Ollama chat, NDJSON stream
    GET  .../models              OpenAI (and Anthropic) model list (`/v1/models`)
    POST .../chat/completions    OpenAI chat, SSE stream
    POST .../messages            Anthropic Messages, SSE stream of typed events
                                 (thinking blocks end with signature "fake-signature")

Script format (a JSON object; every key optional)::

    {
      "models": [                      # default: [{"name": "fake-model",
        {"name": "fake-model",         #   "capabilities": ["tools"], "context_length": 32768}]
         "capabilities": ["tools", "thinking", "vision"],
         "context_length": 32768,      # null/absent: not reported
         "extra": {...}}               # merged into the /v1/models entry (e.g.
      ],                               #   {"meta": {"n_ctx_train": 8192}});
                                       # names may repeat (served as given)
      "list_status": 503,              # model lists (tags, /models) fail with it
      "props": {...},                  # GET /props answers this object (llama.cpp's
                                       #   server: default_generation_settings.n_ctx,
                                       #   total_slots, modalities, chat_template);
                                       #   absent: 404, as on every other server
      "slots": [...],                  # GET /slots answers this list (absent: 404)
      "wire": "openai",                # answer only this protocol ("ollama", "openai",
                                       #   "anthropic"); others 404, as a llama.cpp or
                                       #   vLLM server would (default: all of them)
      "turns": [ TURN, ... ]
    }

Each request to a chat endpoint consumes one turn. A request takes the first
unconsumed turn whose `match` substring occurs in its messages (their JSON
text or their plain contents); a request that matches no such turn takes the
first unconsumed turn *without* `match`. This lets a parent conversation and
a sub-agent conversation follow separate scripts. Once nothing is left the
reply is the plain text "(script exhausted)".

TURN fields (all optional)::

    match             substring selecting this turn (see above)
    repeat            serve this turn N times before it is used up (default 1)
    thinking          string (one chunk) or list of strings (one chunk each)
    content           string (one chunk) or list of strings (one chunk each)
    content_repeat    {"text": "x", "count": 100000}: `count` more content chunks
    content_sequence  {"count": 100000, "prefix": "w"}: `count` more content chunks,
                      all different ("w0 ", "w1 ", ...), sent after content_repeat:
                      a long stream that never trips rift's repetition guard
    garbage           text sent as one raw line after thinking/content
    tool_calls        [{"id"?, "name", "arguments": object or raw string}];
                      OpenAI format splits each call's arguments over two chunks,
                      Ollama format sends one line per call (no id unless given)
    prompt_progress   OpenAI: [[processed, total, cached], ...]: llama.cpp's
                      `prompt_progress` chunks (sent first, when the request asked
                      for `return_progress`), one every chunk_delay
    usage             {"prompt_tokens", "output_tokens", "eval_duration_s"};
                      defaults: body size / 4, number of chunks, 1 ms per chunk
    finish_reason     OpenAI finish reason (default "tool_calls" or "stop")
    status            answer with this HTTP status instead of a stream ...
    error             ... and this message (default "scripted failure")
    error_shape       "string" {"error": msg} (Ollama default), "object"
                      {"error": {"message": msg}} (OpenAI default), "plain" text
    reject_stream_options  answer 400 "stream_options is not supported" to a
                      request carrying stream_options, without using the turn up
    delay_first_byte  seconds to wait before sending anything at all
    chunk_delay       seconds between chunks (0: many chunks per write)
    drop_after        close the connection abruptly after N chunks (lines)
    never_end         true or a string: after content, stream that text (" "
                      for true) every chunk_delay (min 10 ms) until disconnected
    never_end_thinking  the same, as reasoning (thinking) chunks: an endless
                      chain of thought
    omit_done         OpenAI: leave out the final `data: [DONE]`
    truncate          end the body cleanly right after content/garbage: no tool
                      calls, no done line, no finish_reason, no usage
    final_newline     false: the last line has no trailing newline

A "chunk" is one NDJSON line or one SSE event. Streams use chunked transfer
encoding, so a dropped connection is visible to the client as such.

Every request is logged as one JSON line: the request body object (or
{"_raw": text}) plus "_method", "_path", "_t" (arrival, Unix seconds) and, when one
was sent, "_auth" (the Authorization header), "_api_key" (x-api-key) and
"_anthropic_version" (anthropic-version). In-process, `requests()` returns the
same records. Command line::

    python -m rift.testing.fake_server --script FILE [--port N] [--log FILE]

prints its base URL (`http://127.0.0.1:PORT`) as the first stdout line and
serves until killed. Use `URL` for Ollama and `URL/v1` for OpenAI clients; an
Anthropic client (a provider of `kind: "anthropic"`) takes `URL` or `URL/v1`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

EXHAUSTED_TEXT = "(script exhausted)"
DEFAULT_MODELS: list[dict[str, Any]] = [
    {"name": "fake-model", "capabilities": ["tools"], "context_length": 32768}
]
_BATCH_BYTES = 1 << 16
_CHAT_SUFFIXES = ("/api/chat", "/chat/completions", "/messages")
_WIRE_PATHS = {
    "ollama": ("/api/tags", "/api/show", "/api/chat"),
    "openai": ("/models", "/chat/completions", "/props", "/slots"),
    "anthropic": ("/models", "/messages"),
}
_LOGGED_HEADERS = (
    ("Authorization", "_auth"),
    ("x-api-key", "_api_key"),
    ("anthropic-version", "_anthropic_version"),
)
_DISCONNECTS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


# ------------------------------------------------------------------- script


class _Script:
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


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _chunks(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value] if isinstance(value, list) else []


# ------------------------------------------------------------- wire formats


_ENCODER = json.JSONEncoder(separators=(",", ":"))
_dumps = _ENCODER.encode
"""Compact JSON, as `json.dumps(value, separators=...)` gives it without building an
encoder per call (which cost more than the rest of a streamed line)."""


class _OllamaWire:
    content_type = "application/x-ndjson"
    error_shape = "string"

    def __init__(self, model: str, body: dict[str, Any]) -> None:
        self._model = model
        self._head = '{"model":' + _dumps(model) + ',"created_at":"2025-01-01T00:00:00Z","message":'

    def _message(self, message: dict[str, Any], done: str = "false") -> bytes:
        return (self._head + _dumps(message) + ',"done":' + done + "}\n").encode()

    def thinking(self, text: str) -> bytes:
        return self._message({"role": "assistant", "content": "", "thinking": text})

    def content(self, text: str) -> bytes:
        return (
            self._head + '{"role":"assistant","content":' + _dumps(text) + '},"done":false}\n'
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
        return [(_dumps(final) + "\n").encode()]


class _OpenAIWire:
    content_type = "text/event-stream"
    error_shape = "object"

    def __init__(self, model: str, body: dict[str, Any]) -> None:
        self._head = (
            'data: {"id":"chatcmpl-fake","object":"chat.completion.chunk","created":0,'
            '"model":' + _dumps(model) + ',"choices":[{"index":0,"delta":'
        )
        options = body.get("stream_options")
        self._usage = isinstance(options, dict) and bool(options.get("include_usage"))
        self._serial = 0
        self.progress = bool(body.get("return_progress"))

    def prompt_progress(self, processed: int, total: int, cached: int) -> bytes:
        progress = {"total": total, "cache": cached, "processed": processed, "time_ms": 1}
        data = {"id": "chatcmpl-fake", "choices": [], "prompt_progress": progress}
        return ("data: " + _dumps(data) + "\n\n").encode()

    def _delta(self, delta: str, finish: str = "null") -> bytes:
        return (self._head + delta + ',"finish_reason":' + finish + "}]}\n\n").encode()

    def thinking(self, text: str) -> bytes:
        return self._delta('{"reasoning_content":' + _dumps(text) + "}")

    def content(self, text: str) -> bytes:
        return self._delta('{"content":' + _dumps(text) + "}")

    def tool_call(self, index: int, call: dict[str, Any]) -> list[bytes]:
        self._serial += 1
        arguments = call.get("arguments", {})
        text = arguments if isinstance(arguments, str) else _dumps(arguments)
        half = len(text) // 2
        first = {
            "index": index,
            "id": call.get("id") or f"call_fake_{self._serial}",
            "type": "function",
            "function": {"name": call.get("name", ""), "arguments": text[:half]},
        }
        rest = {"index": index, "function": {"arguments": text[half:]}}
        return [self._delta(_dumps({"tool_calls": [piece]})) for piece in (first, rest)]

    def end(self, turn: dict[str, Any], usage: dict[str, Any]) -> list[bytes]:
        reason = turn.get("finish_reason") or ("tool_calls" if turn.get("tool_calls") else "stop")
        lines = [self._delta("{}", _dumps(reason))]
        if self._usage:
            counts = {
                "prompt_tokens": usage["prompt_tokens"],
                "completion_tokens": usage["output_tokens"],
                "total_tokens": usage["prompt_tokens"] + usage["output_tokens"],
            }
            lines.append(
                (
                    "data: "
                    + _dumps({"id": "chatcmpl-fake", "choices": [], "usage": counts})
                    + "\n\n"
                ).encode()
            )
        if not turn.get("omit_done"):
            lines.append(b"data: [DONE]\n\n")
        return lines


class _AnthropicWire:
    """Typed SSE events; blocks open and close as the kind of chunk changes."""

    content_type = "text/event-stream"
    error_shape = "object"

    def __init__(self, model: str, body: dict[str, Any]) -> None:
        self._model = model
        self._index = -1
        self._open: str | None = None

    @staticmethod
    def _event(kind: str, payload: dict[str, Any]) -> bytes:
        return f"event: {kind}\ndata: {_dumps({'type': kind, **payload})}\n\n".encode()

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
        text = arguments if isinstance(arguments, str) else _dumps(arguments)
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


_Wire = _OllamaWire | _OpenAIWire | _AnthropicWire


def _usage(turn: dict[str, Any], raw_size: int, chunks: int) -> dict[str, Any]:
    given = _obj(turn.get("usage"))
    output = int(given.get("output_tokens", chunks))
    return {
        "prompt_tokens": int(given.get("prompt_tokens", raw_size // 4)),
        "output_tokens": output,
        "eval_duration_s": float(given.get("eval_duration_s", output * 0.001)),
    }


def _sequence_lines(wire: _Wire, sequence: dict[str, Any]) -> Iterator[bytes]:
    """`content_sequence`: numbered words, so no two neighbouring deltas are alike."""
    prefix = str(sequence.get("prefix", "w"))
    for i in range(int(sequence.get("count", 0))):
        yield wire.content(f"{prefix}{i} ")


def _turn_lines(turn: dict[str, Any], wire: _Wire, raw_size: int) -> Iterator[bytes]:
    """Every line of a streamed turn, in order; lazily, so 100k chunks cost no memory."""
    thinking, content = _chunks(turn.get("thinking")), _chunks(turn.get("content"))
    repeat, sequence = _obj(turn.get("content_repeat")), _obj(turn.get("content_sequence"))
    count = int(repeat.get("count", 0))
    if isinstance(wire, _AnthropicWire):
        yield from wire.begin(_usage(turn, raw_size, 0)["prompt_tokens"])
    if isinstance(wire, _OpenAIWire) and wire.progress:
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


# ------------------------------------------------------------------ serving


class _ChunkedWriter:
    """Chunked transfer encoding, batching lines into few writes when there is no delay."""

    def __init__(self, handler: BaseHTTPRequestHandler, delay: float, stop: threading.Event):
        self._write = handler.wfile.write
        self._delay = delay
        self._stop = stop
        self._batch: list[bytes] = []
        self._size = 0
        self._sent = 0

    def _chunk(self, data: bytes) -> None:
        if data:
            self._write(b"%x\r\n%s\r\n" % (len(data), data))

    def line(self, data: bytes) -> None:
        if self._delay > 0:
            if self._sent and self._stop.wait(self._delay):
                raise ConnectionAbortedError("server stopping")
            self._chunk(data)
        else:
            self._batch.append(data)
            self._size += len(data)
            if self._size >= _BATCH_BYTES:
                self.flush()
        self._sent += 1

    def flush(self) -> None:
        self._chunk(b"".join(self._batch))
        self._batch, self._size = [], 0

    def finish(self, terminate: bool) -> None:
        self.flush()
        if terminate:
            self._write(b"0\r\n\r\n")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # a reused keep-alive connection must not stall 40 ms
    server: _Server
    timeout = 60

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: tests read the request log instead."""

    def _send_json(self, status: int, payload: Any) -> None:
        data = _dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _read_body(self) -> tuple[dict[str, Any], int]:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        text = raw.decode("utf-8", errors="replace")
        try:
            body = json.loads(text) if text.strip() else {}
        except ValueError:
            body = None
        if not isinstance(body, dict):
            body = {"_raw": text}
        record = {**body, "_method": self.command, "_path": self.path, "_t": time.time()}
        for header, key in _LOGGED_HEADERS:
            if self.headers.get(header):
                record[key] = self.headers[header]
        self.server.state.log(record)
        return body, len(raw)

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def _dispatch(self) -> None:
        body, size = self._read_body()
        path = self.path.split("?", 1)[0].rstrip("/")
        script = self.server.state.script
        models = script.models
        try:
            if script.wire and not path.endswith(_WIRE_PATHS.get(script.wire, ())):
                self._send_json(404, {"error": f"no such endpoint: {self.command} {path}"})
            elif script.list_status and path.endswith(("/api/tags", "/models")):
                self._send_json(script.list_status, {"error": "scripted listing failure"})
            elif path.endswith(("/props", "/slots")) and script.extra(path) is not None:
                self._send_json(200, script.extra(path))
            elif path.endswith("/api/tags"):
                self._send_json(200, {"models": [_tag(m) for m in models]})
            elif path.endswith("/api/show"):
                self._show(str(body.get("model") or body.get("name") or ""))
            elif path.endswith("/models"):
                self._send_json(200, {"object": "list", "data": [_openai_model(m) for m in models]})
            elif path.endswith(_CHAT_SUFFIXES):
                self._chat(body, size, _wire_of(path))
            else:
                self._send_json(404, {"error": f"no such endpoint: {self.command} {path}"})
        except _DISCONNECTS:
            self.close_connection = True

    def _show(self, name: str) -> None:
        entry = self.server.state.script.model(name)
        if entry is None:
            self._send_json(404, {"error": f"model '{name}' not found"})
            return
        info: dict[str, Any] = {"general.architecture": "fake"}
        if entry.get("context_length"):
            info["fake.context_length"] = entry["context_length"]
        self._send_json(
            200,
            {
                "capabilities": entry.get("capabilities", []),
                "model_info": info,
                "details": {"family": "fake"},
            },
        )

    def _chat(self, body: dict[str, Any], size: int, wire_class: type[_Wire]) -> None:
        raw_messages = body.get("messages")
        messages: list[Any] = raw_messages if isinstance(raw_messages, list) else []
        if "system" in body:  # Anthropic: the system prompt travels beside the messages
            messages = [{"role": "system", "content": body["system"]}, *messages]
        plain = "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
        has_options = "stream_options" in body
        turn = self.server.state.script.take(
            [json.dumps(messages, ensure_ascii=False), plain],
            keep=lambda t: bool(t.get("reject_stream_options")) and has_options,
        )
        stop = self.server.state.stopping
        if turn.get("delay_first_byte") and stop.wait(float(turn["delay_first_byte"])):
            return
        wire: _Wire = wire_class(str(body.get("model", "")), body)
        if turn.get("reject_stream_options") and has_options:
            self._send_json(400, {"error": {"message": "stream_options is not supported"}})
        elif turn.get("status"):
            self._error(turn, wire)
        else:
            self._stream(turn, wire, size)

    def _error(self, turn: dict[str, Any], wire: _Wire) -> None:
        message = str(turn.get("error", "scripted failure"))
        shape = turn.get("error_shape", wire.error_shape)
        status = int(turn["status"])
        if shape == "plain":
            data = message.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            error: Any = {"message": message} if shape == "object" else message
            self._send_json(status, {"error": error})

    def _stream(self, turn: dict[str, Any], wire: _Wire, size: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", wire.content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        delay = float(turn.get("chunk_delay") or 0)
        if turn.get("never_end") or turn.get("never_end_thinking"):
            delay = max(delay, 0.01)
        writer = _ChunkedWriter(self, delay, self.server.state.stopping)
        drop_after = turn.get("drop_after")
        for sent, line in enumerate(_turn_lines(turn, wire, size)):
            if drop_after is not None and sent >= int(drop_after):
                writer.finish(terminate=False)
                self._drop()
                return
            writer.line(line)
        writer.finish(terminate=True)

    def _drop(self) -> None:
        """Close the connection mid-body, the way a crashed server or a NAT box would."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


def _wire_of(path: str) -> type[_Wire]:
    if path.endswith("/chat/completions"):
        return _OpenAIWire
    return _AnthropicWire if path.endswith("/messages") else _OllamaWire


def _tag(model: dict[str, Any]) -> dict[str, Any]:
    name = model.get("name", "")
    return {"name": name, "model": name, "size": 0, "digest": "fake", "details": {}}


def _openai_model(model: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": model.get("name", ""), "object": "model", "owned_by": "fake"}
    if model.get("context_length"):
        entry["max_model_len"] = model["context_length"]
    if model.get("capabilities"):
        entry["capabilities"] = model["capabilities"]
    return {**entry, **_obj(model.get("extra"))}


class _State:
    """Shared by all handler threads: the script, the request log, the stop flag."""

    def __init__(self, script: dict[str, Any], log_path: Path) -> None:
        self.script = _Script(script)
        self.log_path = log_path
        self.records: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()

    def log(self, record: dict[str, Any]) -> None:
        with self._lock:
            self.records.append(record)
            # backslashreplace: a lone surrogate in a request stays a valid JSON escape
            with self.log_path.open("a", encoding="utf-8", errors="backslashreplace") as handle:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], state: _State) -> None:
        super().__init__(address, _Handler)
        self.state = state
        self.open_connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._connections_lock:
            self.open_connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self.open_connections.discard(request)
        super().shutdown_request(request)

    def drop_connections(self) -> None:
        """Cut every open (keep-alive) connection, as a killed server would."""
        with self._connections_lock:
            connections = list(self.open_connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Disconnects are part of the job (drops, timeouts); stay quiet about them."""
        if not isinstance(sys.exc_info()[1], _DISCONNECTS):
            super().handle_error(request, client_address)


class FakeModelServer:
    """The fake server, in-process: `with FakeModelServer(script) as server: server.url`."""

    def __init__(
        self,
        script: dict[str, Any] | str | Path | None = None,
        log_path: str | Path | None = None,
        port: int = 0,
    ) -> None:
        """Args:
        script: the script as a dict, or the path of a JSON file holding it.
        log_path: where request records go (one JSON line each); default a temp file.
        port: the port to listen on; 0 picks a free one.
        """
        if isinstance(script, str | Path):
            script = json.loads(Path(script).read_text(encoding="utf-8"))
        if not isinstance(script, dict):
            script = {}
        if log_path is None:
            fd, log_path = tempfile.mkstemp(prefix="rift-fake-", suffix=".jsonl")
            os.close(fd)
        self.log_path = Path(log_path)
        self._state = _State(script, self.log_path)
        self._port = port
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Base URL for Ollama clients, `http://127.0.0.1:PORT`."""
        if self._server is None:
            raise RuntimeError("the fake server is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def v1_url(self) -> str:
        """Base URL for OpenAI-compatible clients (`url` + `/v1`)."""
        return self.url + "/v1"

    def start(self) -> FakeModelServer:
        self._server = _Server(("127.0.0.1", self._port), self._state)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-model-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening and cut open keep-alive connections, as a dead server would."""
        self._state.stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server.drop_connections()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def requests(self, path_suffix: str | None = None) -> list[dict[str, Any]]:
        """Logged request records (body plus `_method`, `_path`), optionally by path suffix."""
        records = list(self._state.records)
        if path_suffix is None:
            return records
        return [r for r in records if r["_path"].split("?", 1)[0].endswith(path_suffix)]

    def chat_requests(self) -> list[dict[str, Any]]:
        """Only the chat requests, in arrival order."""
        return [r for r in self._state.records if r["_path"].endswith(_CHAT_SUFFIXES)]

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    """Serve a script until SIGTERM or Ctrl-C; the first stdout line is the base URL."""
    parser = argparse.ArgumentParser(prog="python -m rift.testing.fake_server")
    parser.add_argument("--script", type=Path, help="JSON script file (default: empty)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", type=Path, help="request log, one JSON line per request")
    args = parser.parse_args(argv)
    server = FakeModelServer(args.script, args.log, args.port).start()
    print(server.url, flush=True)
    print(f"request log: {server.log_path}", file=sys.stderr, flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        while not done.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

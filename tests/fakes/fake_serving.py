"""The fake model server's HTTP side: routing, chunked streaming, request logging,
and dropping connections on request."""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from fakes.fake_replies import (
    AnthropicWire,
    OllamaWire,
    OpenAIWire,
    Script,
    Wire,
    dumps,
    obj,
    turn_lines,
)

_BATCH_BYTES = 1 << 16
CHAT_SUFFIXES = ("/api/chat", "/chat/completions", "/messages")
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
    server: Server
    timeout = 60

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: tests read the request log instead."""

    def _send_json(self, status: int, payload: Any) -> None:
        data = dumps(payload).encode()
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
            elif path.endswith(CHAT_SUFFIXES):
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
        shown: dict[str, Any] = {
            "capabilities": entry.get("capabilities", []),
            "model_info": info,
            "details": {"family": "fake"},
        }
        if isinstance(entry.get("parameters"), str):
            shown["parameters"] = entry["parameters"]
        self._send_json(200, shown)

    def _chat(self, body: dict[str, Any], size: int, wire_class: type[Wire]) -> None:
        """One chat answer, counted in flight while it streams (`State.max_in_flight`)."""
        self.server.state.enter()
        try:
            self._chat_answer(body, size, wire_class)
        finally:
            self.server.state.leave()

    def _chat_answer(self, body: dict[str, Any], size: int, wire_class: type[Wire]) -> None:
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
        wire: Wire = wire_class(str(body.get("model", "")), body)
        if turn.get("reject_stream_options") and has_options:
            self._send_json(400, {"error": {"message": "stream_options is not supported"}})
        elif turn.get("status"):
            self._error(turn, wire)
        else:
            self._stream(turn, wire, size)

    def _error(self, turn: dict[str, Any], wire: Wire) -> None:
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

    def _stream(self, turn: dict[str, Any], wire: Wire, size: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", wire.content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        delay = float(turn.get("chunk_delay") or 0)
        if turn.get("never_end") or turn.get("never_end_thinking"):
            delay = max(delay, 0.01)
        writer = _ChunkedWriter(self, delay, self.server.state.stopping)
        drop_after = turn.get("drop_after")
        for sent, line in enumerate(turn_lines(turn, wire, size)):
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


def _wire_of(path: str) -> type[Wire]:
    if path.endswith("/chat/completions"):
        return OpenAIWire
    return AnthropicWire if path.endswith("/messages") else OllamaWire


def _tag(model: dict[str, Any]) -> dict[str, Any]:
    name = model.get("name", "")
    return {"name": name, "model": name, "size": 0, "digest": "fake", "details": {}}


def _openai_model(model: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": model.get("name", ""), "object": "model", "owned_by": "fake"}
    if model.get("context_length"):
        entry["max_model_len"] = model["context_length"]
    if model.get("capabilities"):
        entry["capabilities"] = model["capabilities"]
    return {**entry, **obj(model.get("extra"))}


class State:
    """Shared by all handler threads: the script, the request log, the stop flag."""

    def __init__(self, script: dict[str, Any], log_path: Path) -> None:
        self.script = Script(script)
        self.log_path = log_path
        self.records: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        """The most chat requests answered at once: a pool's slot limit shows here."""

    def enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def log(self, record: dict[str, Any]) -> None:
        with self._lock:
            self.records.append(record)
            # backslashreplace: a lone surrogate in a request stays a valid JSON escape
            with self.log_path.open("a", encoding="utf-8", errors="backslashreplace") as handle:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], state: State) -> None:
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

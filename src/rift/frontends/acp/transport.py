"""JSON-RPC 2.0 messages over stdio, one per line, for the ACP SDK's `Connection`.

The SDK's own reader skips a line that is not JSON, so its sender would wait forever:
this transport answers every unusable line with a JSON-RPC error and keeps reading. It
also maps the unstable `session/set_model` to rift's `_rift/set_model` extension."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any, BinaryIO

from rift.frontends.serve_io import read_lines

log = logging.getLogger("rift.acp")

MAX_LINE_BYTES = 50 * 1024 * 1024
"""The SDK's own default limit: embedded file context makes prompts large."""
SET_MODEL_METHOD = "session/set_model"
SET_MODEL_EXTENSION = "rift/set_model"
HANDLED_NOTIFICATIONS = frozenset({"session/cancel"})
"""Plus every `_`-prefixed extension notification (the agent's `ext_notification`)."""
_EOF = object()


def _valid_id(request_id: Any) -> bool:
    """JSON-RPC 2.0 ids: a string, an integer (not a bool) or null."""
    return not isinstance(request_id, bool) and (
        request_id is None or isinstance(request_id, str | int)
    )


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    """An error reply; `request_id` was vetted (an invalid one is answered with null)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _read_lines(
    stream: BinaryIO, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[Any]
) -> None:
    """Thread body: split stdin into lines; an over-long line becomes a ValueError."""
    try:
        read_lines(stream, loop, queue, MAX_LINE_BYTES, _too_long, _EOF)
    except (OSError, ValueError) as exc:  # stdin closed under us: same as EOF
        log.debug("stdin reader stopped: %s", exc)
        loop.call_soon_threadsafe(queue.put_nowait, _EOF)


def _too_long(size: int) -> Exception:
    return ValueError(f"message longer than {MAX_LINE_BYTES} bytes")


class StdioTransport:
    """Implements the SDK's message-level `Transport` on a byte stream pair."""

    def __init__(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self._stdin = stdin
        self._stdout = stdout
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._pending: list[dict[str, Any]] = []
        self._closed = False

    def start(self) -> None:
        """Start the reader thread (a daemon: a blocked read never holds up exit)."""
        loop = asyncio.get_running_loop()
        threading.Thread(
            target=_read_lines, args=(self._stdin, loop, self._queue), daemon=True
        ).start()

    async def send(self, message: dict[str, Any]) -> None:
        if self._closed:
            raise ConnectionError("the ACP connection is closed")
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        try:
            self._stdout.write(data + b"\n")
            self._stdout.flush()
        except (OSError, ValueError) as exc:
            self._closed = True
            raise ConnectionError(f"the editor stopped reading: {exc}") from exc

    def push_back(self, message: dict[str, Any]) -> None:
        """Return a message already taken (by the handshake) so `receive` yields it next."""
        self._pending.append(message)

    async def receive(self) -> dict[str, Any] | None:
        """The next usable message; None at end of input."""
        if self._pending:
            return self._pending.pop(0)
        while True:
            item = await self._queue.get()
            if item is _EOF:
                return None
            if isinstance(item, ValueError):
                await self._reply(_error(None, -32600, f"Invalid request: {item}"))
                continue
            message = await self._check(item)
            if message is not None:
                return message

    async def close(self) -> None:
        self._closed = True

    async def _reply(self, payload: dict[str, Any]) -> None:
        try:
            await self.send(payload)
        except ConnectionError as exc:
            log.debug("could not send an error reply: %s", exc)

    async def _check(self, raw: bytes) -> dict[str, Any] | None:
        """Parse and vet one line; anything unusable is answered here and dropped."""
        if not raw.strip():
            return None
        try:
            message = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            await self._reply(_error(None, -32700, f"Parse error: {exc}"))
            return None
        if not isinstance(message, dict):
            detail = "batches are not supported" if isinstance(message, list) else "not an object"
            await self._reply(_error(None, -32600, f"Invalid request: {detail}"))
            return None
        has_id = "id" in message
        request_id = message.get("id")
        if has_id and not _valid_id(request_id):
            await self._reply(
                _error(None, -32600, "Invalid request: id must be a string or integer")
            )
            return None
        if message.get("jsonrpc") != "2.0":
            await self._reply(_error(request_id, -32600, 'Invalid request: needs "jsonrpc": "2.0"'))
            return None
        if "method" in message:
            method = message["method"]
            if not isinstance(method, str):
                if has_id:
                    await self._reply(_error(request_id, -32600, "Invalid request: bad method"))
                return None
            if not has_id and method not in HANDLED_NOTIFICATIONS and not method.startswith("_"):
                log.debug("ignoring notification %s", method)
                return None
            if method == SET_MODEL_METHOD:
                message = {**message, "method": "_" + SET_MODEL_EXTENSION}
            return message
        if request_id is not None:
            return message  # a response to one of our requests
        await self._reply(_error(None, -32600, "Invalid request: no method"))
        return None

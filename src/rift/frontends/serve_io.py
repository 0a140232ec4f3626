"""serve's wire I/O: events out as JSON lines, command lines in from stdin.

The writer batches a step's content deltas into one event; the reader is a thread
that refuses over-long lines without reading them whole."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, BinaryIO

from rift.events import Content, Event, Thinking, to_json_line

MAX_LINE_BYTES = 4 * 1024 * 1024
EOF_MARK = object()


class EventWriter:
    """Writes one JSON line per event to the real stdout, flushed once per event-loop step.

    A step's consecutive `content` or `thinking` texts become one event (clients
    concatenate them), so a fast server costs one line per step, not one per token.
    """

    MERGED_CHARS = 16_384
    """The most text one merged event carries (a long reply still streams in pieces)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._flush_pending = False
        self._texts: list[str] = []
        self._text_kind: type[Content | Thinking] = Content
        self._text_chars = 0
        self.closed = False

    def __call__(self, event: Event) -> None:
        if self.closed:
            return
        kind = type(event)
        if kind is Content or kind is Thinking:
            assert isinstance(event, Content | Thinking)
            if self._text_kind is not kind:
                self._write_texts()
                self._text_kind = kind
            self._texts.append(event.text)
            self._text_chars += len(event.text)
            if self._text_chars >= self.MERGED_CHARS:
                self._write_texts()
        else:
            self._write_texts()
            self._write(event)
        if self._flush_pending:
            return
        try:
            asyncio.get_running_loop().call_soon(self.flush)
            self._flush_pending = True
        except RuntimeError:
            self.flush()

    def _write_texts(self) -> None:
        """The waiting deltas as one event of their kind."""
        if self._texts:
            text, self._texts, self._text_chars = "".join(self._texts), [], 0
            self._write(self._text_kind(text=text))

    def _write(self, event: Event) -> None:
        if self.closed:
            return
        try:
            # A lone surrogate (a filename that is not UTF-8, a `\ud800` from a client or a
            # model) cannot be encoded; as `\udXXX` it stays valid JSON for the consumer.
            line = to_json_line(event).encode("utf-8", errors="backslashreplace")
            self._stream.write(line + b"\n")
        except (BrokenPipeError, ValueError, OSError):
            self.closed = True  # the client is gone; stdin EOF will end the loop

    def flush(self) -> None:
        self._flush_pending = False
        self._write_texts()
        if self.closed:
            return
        try:
            self._stream.flush()
        except (BrokenPipeError, ValueError, OSError):
            self.closed = True


def _command_too_long(size: int) -> Exception:
    return ValueError(
        f"command line too long ({size} bytes; the limit is {MAX_LINE_BYTES} bytes); ignored"
    )


def read_lines(
    stream: BinaryIO,
    loop: asyncio.AbstractEventLoop,
    queue: asyncio.Queue[Any],
    limit: int = MAX_LINE_BYTES,
    too_long: Callable[[int], Exception] = _command_too_long,
    eof: object = EOF_MARK,
) -> None:
    """Thread body: split stdin into lines, then `eof`; a line over `limit` bytes is
    discarded without being read whole and queued as `too_long(its size)` (serve's and
    ACP's readers)."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            break
        item: bytes | Exception = line
        if len(line) > limit and not line.endswith(b"\n"):
            size = len(line)
            while True:  # discard the rest of the over-long line
                more = stream.readline(limit)
                size += len(more)
                if not more or more.endswith(b"\n"):
                    break
            item = too_long(size)
        loop.call_soon_threadsafe(queue.put_nowait, item)
    loop.call_soon_threadsafe(queue.put_nowait, eof)

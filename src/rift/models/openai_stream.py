"""Reading an OpenAI-compatible SSE stream: deltas in, neutral model events out.

Tool calls arrive in pieces keyed by `index` (or whole and keyed by id) and are emitted
only once complete, at `finish_reason` or the end of the stream; llama.cpp's
`prompt_progress` chunks become `PromptProgress`.
"""

from __future__ import annotations

import json
from typing import Any

from msgspec import Struct, field

from rift.errors import StreamError
from rift.models.base import (
    ModelEvent,
    PromptProgress,
    ToolCall,
    Usage,
    call_from_text,
    text_deltas,
)
from rift.models.http import error_mid_answer

_SSE_FIELDS = ("event:", "id:", "retry:")


class _PartialCall(Struct):
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def complete(self) -> ToolCall:
        return call_from_text(self.id, self.name, "".join(self.arguments))


class StreamState(Struct):
    """What one SSE stream has delivered so far."""

    calls: dict[int, _PartialCall] = field(default_factory=dict)
    usage: Usage | None = None
    finish_reason: str | None = None

    def feed(self, data: dict[str, Any]) -> list[ModelEvent]:
        if error := data.get("error"):
            raise error_mid_answer(error)
        progress = data.get("prompt_progress")
        events: list[ModelEvent] = []
        if isinstance(progress, dict):  # llama.cpp, asked with return_progress
            events.append(
                PromptProgress(
                    processed=int(progress.get("processed") or 0),
                    total=int(progress.get("total") or 0),
                    cached=int(progress.get("cache") or 0),
                    time_ms=int(progress.get("time_ms") or 0),
                )
            )
        usage, timings = data.get("usage"), data.get("timings")
        if isinstance(usage, dict) or isinstance(timings, dict):
            self.usage = _merge_usage(
                usage if isinstance(usage, dict) else {},
                timings if isinstance(timings, dict) else {},
                self.usage or Usage(),
            )
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return events
        choice = choices[0]
        delta = choice.get("delta") or choice.get("message") or {}
        if isinstance(delta, dict):
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            events += text_deltas(reasoning, delta.get("content"))
            for piece in delta.get("tool_calls") or ():
                if isinstance(piece, dict):
                    self._add_piece(piece)
        if choice.get("finish_reason"):
            self.finish_reason = str(choice["finish_reason"])
            events += self.flush_calls()
        return events

    def _add_piece(self, piece: dict[str, Any]) -> None:
        """Merge one tool-call fragment: id and name come first, arguments accumulate."""
        index = piece.get("index")
        piece_id = piece.get("id") if isinstance(piece.get("id"), str) else None
        if not isinstance(index, int):
            # Servers that omit `index` send whole calls; a new id means a new call.
            known = [k for k, c in self.calls.items() if c.id == piece_id]
            if known:
                index = known[0]
            elif piece_id or not self.calls:
                index = max(self.calls, default=-1) + 1
            else:
                index = max(self.calls)
        call = self.calls.setdefault(index, _PartialCall())
        if piece_id and not call.id:
            call.id = piece_id
        raw_function = piece.get("function")
        function: dict[str, Any] = raw_function if isinstance(raw_function, dict) else {}
        if isinstance(function.get("name"), str) and not call.name:
            call.name = function["name"]
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call.arguments.append(arguments)
        elif isinstance(arguments, dict):
            call.arguments.append(json.dumps(arguments))

    def flush_calls(self) -> list[ModelEvent]:
        events: list[ModelEvent] = [c.complete() for _, c in sorted(self.calls.items()) if c.name]
        self.calls.clear()
        return events


def sse_payload(line: str) -> str | None:
    """The data of one SSE line; None for comments and fields that carry none."""
    if line.startswith("data:"):
        return line[5:].strip()
    if line.startswith(":") or line.startswith(_SSE_FIELDS):
        return None
    if line.startswith("{"):
        return line  # a bare JSON object: some servers send errors this way
    raise StreamError(f"malformed line from the model server: {line[:200]}")


def _merge_usage(usage: dict[str, Any], timings: dict[str, Any], seen: Usage) -> Usage:
    """The request's counts from the OpenAI `usage` object and llama-server's `timings`
    (`prompt_n`, `prompt_ms`, `predicted_n`, `predicted_ms`, `cache_n`), which may come
    in different chunks: what a chunk does not carry keeps what an earlier one said."""
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    prefill, cache = _num(timings, "prompt_n"), _num(timings, "cache_n")
    return Usage(
        prompt_tokens=int(_num(usage, "prompt_tokens") or seen.prompt_tokens or prefill + cache),
        output_tokens=int(
            _num(usage, "completion_tokens") or seen.output_tokens or _num(timings, "predicted_n")
        ),
        eval_duration_s=_num(timings, "predicted_ms") / 1000 or seen.eval_duration_s,
        prefill_tokens=int(prefill) or seen.prefill_tokens,
        prefill_s=_num(timings, "prompt_ms") / 1000 or seen.prefill_s,
        cached_tokens=int(cache or _num({"n": cached}, "n")) or seen.cached_tokens,
    )


def _num(data: dict[str, Any], key: str) -> float:
    """A non-negative number the server sent under `key`, 0 when absent or not a number."""
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return max(float(value), 0.0)

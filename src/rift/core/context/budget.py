"""Token accounting and two-stage compaction.

Local servers silently cut a prompt that overflows `num_ctx` from the front, losing the
system prompt and the task. So before every model call the conversation is estimated
against a budget and, when over, compacted: stage 1 prunes old tool outputs and thinking,
stage 2 asks the model for a summary of everything before the current turn. Estimates
are bytes / 4, calibrated by the server's own `prompt_eval_count`.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from typing import Any, cast

from msgspec import Struct

from rift.core.sessions.store import COMPACTED_PREFIX, turn_starts
from rift.errors import RiftError
from rift.models.base import ChatRequest, Message, Provider, reply_text
from rift.text.hygiene import scrub
from rift.text.patterns import lazy

log = logging.getLogger(__name__)

OUTPUT_RESERVE = 4096
SAFETY_MARGIN = 1024
KEEP_RECENT_TURNS = 2
PRUNE_MIN_CHARS = 800
PRUNE_KEEP_CHARS = 200
SUMMARY_LINE_CHARS = 1500
SUMMARY_NUM_PREDICT = 1500

Emit = Callable[[str, str], None]
"""emit(kind, text) with kind "info" or "warning"."""


def estimate_text(text: str) -> int:
    """Rough tokens for a text: UTF-8 bytes / 4, plus one."""
    return len(text.encode("utf-8")) // 4 + 1


def estimate_messages(messages: Sequence[Message]) -> int:
    """Uncalibrated tokens for a message list, with 8 tokens of framing per message."""
    total = 0
    for message in messages:
        total += estimate_text(message.get("content", "")) + 8
        thinking = message.get("thinking")
        if thinking:
            total += estimate_text(thinking)
        for call in message.get("tool_calls") or []:
            total += estimate_text(json.dumps(call["function"], ensure_ascii=False))
    return total


def estimate_tools(tool_schemas: Sequence[dict[str, Any]]) -> int:
    """Uncalibrated tokens the tool definitions add to every request."""
    if not tool_schemas:
        return 0
    return estimate_text(json.dumps(list(tool_schemas), ensure_ascii=False))


class TokenMeter:
    """Estimates scaled by how far off the byte heuristic has been for this model."""

    MIN_CALIBRATION = 0.5
    MAX_CALIBRATION = 3.0

    def __init__(self) -> None:
        self.calibration = 1.0

    def update(self, prompt_eval_count: int, unscaled_estimate: int) -> None:
        """Fold one call's real prompt size into the factor (an exponential average)."""
        if prompt_eval_count <= 0 or unscaled_estimate <= 0:
            return
        ratio = prompt_eval_count / unscaled_estimate
        blended = 0.7 * self.calibration + 0.3 * ratio
        self.calibration = min(max(blended, self.MIN_CALIBRATION), self.MAX_CALIBRATION)

    def unscaled(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]) -> int:
        """The raw byte estimate; pass this to `update` alongside the server's count."""
        return estimate_messages(messages) + estimate_tools(tools)

    def estimate(self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]) -> int:
        """The calibrated token estimate (what the context gauge shows)."""
        return int(self.unscaled(messages, tools) * self.calibration)


def budget(num_ctx: int) -> int:
    """Prompt tokens allowed before compaction; never below half of num_ctx, so a small
    window (the embedded model's 8192) still leaves room for a conversation."""
    return max(num_ctx - OUTPUT_RESERVE - SAFETY_MARGIN, num_ctx // 2)


def truncation_suspected(prompt_eval_count: int, num_ctx: int) -> bool:
    """True when the server's prompt filled the window: it was probably cut from the front."""
    return prompt_eval_count > 0 and prompt_eval_count >= num_ctx - num_ctx // 50


def truncation_warning(num_ctx: int) -> str:
    """The warning shown when `truncation_suspected` is true."""
    return (
        f"context overflow: prompt filled num_ctx={num_ctx} and was likely"
        " front-truncated; raise num_ctx or /compact"
    )


def _current_turn_start(messages: Sequence[Message]) -> int | None:
    """Index of the prompt that began the current turn (else the last user message)."""
    starts = turn_starts(list(messages))
    if starts:
        return starts[-1]
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    return users[-1] if users else None


def strip_old_thinking(messages: Sequence[Message]) -> list[Message]:
    """A request-only copy without the thinking of turns before the current one (the stored
    history keeps it)."""
    cut = _current_turn_start(messages) or 0
    return [
        cast(Message, {k: v for k, v in m.items() if k != "thinking"})
        if i < cut and "thinking" in m
        else m
        for i, m in enumerate(messages)
    ]


def prune_old_outputs(messages: Sequence[Message]) -> tuple[list[Message], int]:
    """Stage 1: before the last two turns, long tool results keep their head and a note that
    the tool can be re-run, and thinking goes; (a copy, how many results were shortened)."""
    starts = turn_starts(list(messages))
    cut = starts[-KEEP_RECENT_TURNS:][0] if starts else 0
    out: list[Message] = []
    pruned = 0
    for i, message in enumerate(messages):
        if i >= cut:
            out.append(message)
            continue
        copy = cast(dict[str, Any], dict(message))
        if _long_output(message):
            copy["content"] = _elided(message)
            pruned += 1
        if message["role"] == "assistant":
            copy.pop("thinking", None)
        out.append(cast(Message, copy))
    return out, pruned


def _long_output(message: Message) -> bool:
    return message["role"] == "tool" and len(message.get("content", "")) > PRUNE_MIN_CHARS


def _elided(message: Message) -> str:
    content = message.get("content", "")
    elided = len(content[PRUNE_KEEP_CHARS:].encode("utf-8"))
    return (
        content[:PRUNE_KEEP_CHARS]
        + f"\n[… {elided} bytes elided by compaction; re-run the tool if you need it]"
    )


def prune_this_turn(messages: Sequence[Message]) -> tuple[list[Message], int]:
    """Stage 3, for a turn that outgrows the window on its own (a `-p` task is one turn):
    shorten the long results of this turn's earlier steps. The results of the step the
    model took last stay whole: it asked for them and has not read them yet."""
    start = _current_turn_start(messages) or 0
    steps = [i for i, m in enumerate(messages) if m["role"] == "assistant" and m.get("tool_calls")]
    last_step = steps[-1] if steps else len(messages)
    out: list[Message] = []
    pruned = 0
    for i, message in enumerate(messages):
        if start < i < last_step and _long_output(message):
            out.append(cast(Message, {**message, "content": _elided(message)}))
            pruned += 1
        else:
            out.append(message)
    return out, pruned


SUMMARY_INSTRUCTIONS = """\
You are compacting a coding agent's conversation so it can continue with less context.
Summarize the transcript below. Reply with exactly these five sections, as Markdown
headings, and nothing else:

## Goal
What the user wants overall.
## Constraints
Requirements, preferences and limits the user stated.
## Progress
Files changed, commands run, and their results.
## Key Decisions
Choices made and why.
## Next Steps / Critical Context
What remains, and facts (paths, names, errors, values) needed to continue.

Be specific and concise: keep exact file paths, identifiers and error messages."""

_THINK_BLOCK = lazy(r"^\s*<think>.*?</think>\s*", re.DOTALL)


def _render_line(message: Message) -> list[str]:
    lines: list[str] = []
    content = message.get("content", "")[:SUMMARY_LINE_CHARS]
    role = message["role"]
    if role == "user":
        lines.append(f"USER: {content}")
    elif role == "tool":
        lines.append(f"TOOL RESULT: {content}")
    elif role == "assistant":
        if content.strip():
            lines.append(f"ASSISTANT: {content}")
        for call in message.get("tool_calls") or []:
            args = json.dumps(call["function"]["arguments"], ensure_ascii=False)
            lines.append(
                f"ASSISTANT CALLED: {call['function']['name']}({args[:SUMMARY_LINE_CHARS]})"
            )
    return lines


def _fit_transcript(lines: list[str], max_chars: int) -> str:
    """Join the lines, dropping middle ones if the transcript would overflow the window: the
    first lines (the original request) and the most recent ones matter most."""
    text = "\n".join(lines)
    if len(text) <= max_chars:
        return text
    head: list[str] = []
    size = 0
    for line in lines[:3]:
        if size + len(line) > max_chars // 4:
            break
        head.append(line)
        size += len(line) + 1
    tail: list[str] = []
    for line in reversed(lines[len(head) :]):
        if size + len(line) > max_chars:
            break
        tail.append(line)
        size += len(line) + 1
    omitted = len(lines) - len(head) - len(tail)
    return "\n".join([*head, f"[… {omitted} earlier lines omitted …]", *reversed(tail)])


def _split(messages: Sequence[Message]) -> tuple[list[Message], list[Message], list[Message]]:
    """(leading system messages, history to summarize, current turn onward)."""
    head = 0
    while head < len(messages) and messages[head]["role"] == "system":
        head += 1
    cut = _current_turn_start(messages)
    if cut is None or cut < head:
        return list(messages[:head]), [], list(messages[head:])
    return list(messages[:head]), list(messages[head:cut]), list(messages[cut:])


async def summarize(
    provider: Provider, *, model: str, num_ctx: int, messages: Sequence[Message]
) -> list[Message]:
    """Stage 2: everything before the current turn replaced by a model-written summary (the
    messages unchanged when there is none). An empty summary raises RiftError rather than
    erasing history."""
    system, middle, current = _split(messages)
    if not middle:
        return list(messages)
    lines = [line for message in middle for line in _render_line(message)]
    max_chars = max(4000, (num_ctx - SUMMARY_NUM_PREDICT - SAFETY_MARGIN) * 3)
    request = ChatRequest(
        model=model,
        messages=[
            {"role": "system", "content": SUMMARY_INSTRUCTIONS},
            {"role": "user", "content": "Transcript:\n\n" + _fit_transcript(lines, max_chars)},
        ],
        tools=[],
        num_ctx=num_ctx,
        temperature=0.0,
        think=False,
        num_predict=SUMMARY_NUM_PREDICT,
    )
    summary = scrub(_THINK_BLOCK().sub("", await reply_text(provider, request)).strip())
    if not summary:
        raise RiftError("the model returned an empty summary")
    note: Message = {"role": "user", "content": COMPACTED_PREFIX + summary}
    return [*system, note, *current]


class CompactionCounts(Struct, dict=True):
    """What one `enforce_budget` call did, for traces and /stats."""

    prunes: int = 0
    """1 when stage 1 shortened anything."""
    summaries: int = 0
    """1 when stage 2 replaced history with a summary."""


async def enforce_budget(
    messages: list[Message],
    *,
    meter: TokenMeter,
    tools: Sequence[dict[str, Any]],
    num_ctx: int,
    provider: Provider,
    model: str,
    emit: Emit,
) -> tuple[list[Message], CompactionCounts]:
    """Bring the conversation under `budget(num_ctx)`, always keeping the current turn; a
    failed summary is a warning and the pruned list goes on, so the turn can continue."""
    counts = CompactionCounts()
    limit = budget(num_ctx)
    before = meter.estimate(messages, tools)
    if before <= limit:
        return messages, counts
    current, pruned = prune_old_outputs(messages)
    after = meter.estimate(current, tools)
    if pruned:
        counts.prunes = 1
        emit(
            "info",
            f"compacted: pruned {pruned} old outputs (~{before} → ~{after} tok, budget {limit})",
        )
    if after <= limit or not _split(current)[1]:
        return _fit_this_turn(current, after, limit, meter, tools, counts, emit), counts
    emit("info", "compacting: summarizing earlier conversation…")
    try:
        summarized = await summarize(provider, model=model, num_ctx=num_ctx, messages=current)
    except Exception as exc:  # any failure: keep working with the pruned history
        log.warning("summarization failed", exc_info=True)
        emit("warning", f"summarization failed ({exc}); continuing pruned")
        return _fit_this_turn(current, after, limit, meter, tools, counts, emit), counts
    counts.summaries = 1
    size = meter.estimate(summarized, tools)
    emit("info", f"compacted: history summarized (~{size} tok)")
    return _fit_this_turn(summarized, size, limit, meter, tools, counts, emit), counts


def _fit_this_turn(
    messages: list[Message],
    size: int,
    limit: int,
    meter: TokenMeter,
    tools: Sequence[dict[str, Any]],
    counts: CompactionCounts,
    emit: Emit,
) -> list[Message]:
    """Stage 3 when the earlier turns could give no more room."""
    if size <= limit:
        return messages
    trimmed, pruned = prune_this_turn(messages)
    if pruned:
        counts.prunes += 1
        after = meter.estimate(trimmed, tools)
        emit(
            "info",
            f"compacted: pruned {pruned} earlier outputs of this turn"
            f" (~{size} → ~{after} tok, budget {limit})",
        )
    return trimmed

"""One turn of the agent loop: run → step → query → execute, top to bottom.

A turn appends the user's message, then iterates: ask the model (streaming
its thinking and reply as events), run the tool calls it made, feed the
results back, until the model answers without calling a tool or a stopping
rule fires. Events leave through the injected `emit`; the loop never touches
a front end. Cancellation is plain asyncio task cancellation: every tool call
the model made still gets a result, so the stored conversation stays valid.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence

from rift.core.context.budget import (
    enforce_budget,
    strip_old_thinking,
    truncation_suspected,
    truncation_warning,
)
from rift.core.loop import aftercheck, hardening, preread, salvage, wholefile
from rift.core.loop.busy import retry_busy
from rift.core.loop.reply import Reply, assistant_message, stream_reply
from rift.core.loop.setup import EDIT_DIFF_LINES, RESULT_OUTPUT_CAP, TurnSetup
from rift.core.loop.timings import TurnClock
from rift.core.permissions.hunks import changed_lines, diff_region, preview_diff
from rift.errors import ToolError
from rift.events import (
    Content,
    EditDiff,
    Event,
    Info,
    Iteration,
    Plan,
    ToolResult,
    ToolStart,
    TurnStats,
    Warning,
)
from rift.models import repetition
from rift.models.base import ChatRequest, Message, ToolCall, Usage
from rift.text import scrub
from rift.tools import canonical_name
from rift.tools.base import ToolOutput
from rift.tools.calls import describe_call

log = logging.getLogger("rift.turn")
TARGET_CHARS = 200
"""A call's summary in the trace's tool list is cut here."""
STUCK_NUDGE_AT, STUCK_STOP_AT = 4, 7


class TurnStopped(Exception):
    """Ends the turn early with a reason shown as a warning."""


class Turn:
    """A single turn over a shared message list."""

    def __init__(self, setup: TurnSetup, messages: list[Message], emit: Callable[[Event], None]):
        self.s = setup
        self.messages = messages
        self.emit = emit
        self.stats = TurnStats()
        self._words = ""
        self._prompt_message: Message | None = None
        self._refusals_at_start = 0
        self._iterations = self._prompt_tokens = self._billed = self._output = 0
        self._gen_seconds = 0.0
        self._clock = TurnClock()
        self._repeats = hardening.RepeatGuard()
        self._failures = 0
        self._changed = self._nudged = self._stuck_nudge_due = self._greedy = False
        self._open_calls: list[tuple[str, str]] = []
        self._prereads = 0
        self._preread_paths: list[str] = []
        self._whole = ""
        """The file asked for whole this turn (core/wholefile.py), "" when none."""
        self._rename = ""
        """The file a rename was spelled out for this turn (wholefile.rename_hint), "" if none."""
        self._checked = False
        self.cancelled = False
        self.outcome = "answered"
        self.reason = ""
        """Why the turn did not simply answer, in words ("" when it did)."""
        self.counters: Counter[str] = Counter()
        """Failure and repair counts for traces (doom_loop_trips, tool_errors, ...)."""
        self.tool_log: list[tuple[str, bool, str]] = []
        """(tool, ok, target) per call, for traces."""

    async def run(
        self, prompt: str, words: str | None = None, images: Sequence[str] = ()
    ) -> TurnStats:
        """Run the turn to its end; cancellation is absorbed after cleaning up.

        `words` is what the person typed (without attached files or notes); the
        apply-nudge reads only that, so a file that mentions "fix" is no request.
        `images` (data URLs) ride on the prompt's message.
        """
        started = time.monotonic()
        self._words = prompt if words is None else words
        self.s.ctx.services.task_words = self._words  # what the user named (tools/protected.py)
        self._refusals_at_start = self.s.ctx.gate.refusals
        message: Message = {"role": "user", "content": prompt}
        if images:
            message["images"] = list(images)
        self._prompt_message = message
        self.messages.append(message)
        try:
            for n in range(1, self.s.max_iterations + 1):
                if await self._step(n):
                    break
            else:  # every iteration went to tool calls: the budget ran out first
                self.outcome = "wrapped"
                self.reason = f"the turn used all {self.s.max_iterations} iterations"
        except TurnStopped as stop:
            self.outcome, self.reason = "stopped", str(stop)
            self.emit(Warning(str(stop)))
        except asyncio.CancelledError:
            self._close_open_calls("ERROR: cancelled by user")
            self.cancelled, self.outcome, self.reason = True, "cancelled", "turn cancelled"
            self.emit(Warning("turn cancelled"))
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
        finally:  # whatever ended the turn, no file it changed is left unparseable
            salvage.report_unparseable(self.s.ctx.journal, self.s.ctx.cwd, self.emit)
        return self._finish(started)

    async def _preread(self) -> None:
        """Run `read` on the files the task names, as if the model had asked for them."""
        if "read" not in self.s.tools:
            return
        ctx = self.s.ctx
        paths = preread.named_files(self._words, ctx.cwd, ctx.gate.check_read)
        calls = [
            ToolCall(id=f"{preread.PREREAD_ID}{i}", name="read", arguments={"path": path})
            for i, path in enumerate(paths, 1)
        ]
        if not calls:
            return
        self._record_assistant(Reply(calls=calls))
        for call in calls:
            await self._execute(call)
        self._prereads = len(calls)
        self._preread_paths = paths
        if "edit" in self.s.tools:
            self._rename, hint = wholefile.rename_hint(self._words, paths, ctx.cwd)
            if hint:
                self.counters["rename_hints"] += 1
                self.messages.append({"role": "user", "content": hint})
        if "write" in self.s.tools and not self._rename:
            self._whole = wholefile.target(self._words, paths, ctx.cwd)
        if self._whole:
            self.counters["whole_file_requests"] += 1
            self.messages.append(
                {"role": "user", "content": wholefile.request(self._whole, self._words)}
            )

    async def _step(self, n: int) -> bool:
        """One iteration; True when the model gave its final answer."""
        self._iterations = n
        self.emit(Iteration(n=n))
        if n == 1 and self.s.preread:
            await self._preread()
        last_round = n == self.s.max_iterations and n >= 3
        if n == self.s.max_iterations - 2 and self.s.max_iterations >= 3:
            self.messages.append({"role": "user", "content": hardening.WRAP_UP_WARNING})
        if last_round:
            self.counters["wrap_ups"] += 1
            self.outcome = "wrapped"
            self.reason = f"the turn used all {self.s.max_iterations} iterations"
        reply = await self._query(with_tools=not last_round)
        if n == 1 and self._whole:
            if not reply.calls:  # the file as a fenced block in the content (a server model)
                reply.calls = wholefile.as_write(reply.content, self._whole)
                reply.content = "" if reply.calls else reply.content
            reply.calls = [wholefile.settle(c, self._whole, self.s.ctx.cwd) for c in reply.calls]
        self._record_assistant(reply)
        if not reply.calls:
            if not last_round and await self._check_failed():
                return False
            if not last_round and self._nudge_due(reply.content):
                self._nudged = True
                self.counters["apply_nudges"] += 1
                self.messages.append({"role": "user", "content": hardening.APPLY_NUDGE})
                # The follow-up is a new message on screen, not a continuation of this one.
                self.emit(Info(hardening.APPLY_NUDGE_NOTICE))
                return False
            return not self._greedy_retry()
        outputs = [await self._execute(call) for call in reply.calls]
        if n == 1 and (self._whole or self._rename) and await self._first_step_done(outputs):
            return True
        if self._stuck_nudge_due:  # after every result: tool messages must follow their call
            self._stuck_nudge_due = False
            self.messages.append({"role": "user", "content": hardening.STUCK_NUDGE})
        return False

    async def _first_step_done(self, outputs: list[ToolOutput]) -> bool:
        """After the whole-file write or the spelled-out rename (core/wholefile.py): when it
        was applied and the checks pass, the turn ends with rift's own answer; otherwise the
        loop goes on."""
        path = self._whole or self._rename
        written = [o.edit for o in outputs if o.ok and o.edit and o.edit.path == path]
        undone = any("Not done yet" in o.text for o in outputs)
        if not written or undone or await self._check_failed():
            return False
        added, removed = changed_lines(written[0].old, written[-1].new)
        text = wholefile.answer(path, added, removed)
        self.emit(Content(text=text))
        self.messages.append({"role": "assistant", "content": text})
        return True

    async def _check_failed(self) -> bool:
        """Once per turn, before a turn that changed files ends: what the project offers to
        check the change (core/aftercheck.py); True when a failure went back to the model."""
        if not self._changed or self._checked:
            return False
        self._checked = True
        ctx = self.s.ctx
        problems = aftercheck.leftover_problems(ctx.journal, ctx.cwd) or (
            aftercheck.unfinished_task(self._words, ctx.journal, ctx.cwd)
        )
        if problems:
            self.counters["check_failures"] += 1
            self.messages.append({"role": "user", "content": problems})
            return True
        command = aftercheck.test_command(self._words, ctx.journal, ctx.cwd)
        if not command or "bash" not in self.s.tools:
            return False
        call = ToolCall(id="rift_check_1", name="bash", arguments={"command": command})
        self._record_assistant(Reply(calls=[call]))
        output = await self._execute(call)
        if output.ok:
            return False
        self.counters["check_failures"] += 1
        self.messages.append({"role": "user", "content": aftercheck.FAILED_TESTS})
        return True

    def _nudge_due(self, reply: str) -> bool:
        """Ask once for the change the model described, never after a person said no."""
        if self._changed or self._nudged:
            return False
        if self.s.ctx.gate.refusals != self._refusals_at_start:
            return False
        return hardening.wants_apply_nudge(self._words, reply)

    def _greedy_retry(self) -> bool:
        """Headless, once per turn: the apply nudge got no tool call either, so the turn is
        cut back to its prompt and re-run at temperature 0 (sampling noise is a
        common reason a small model answers in prose instead of acting)."""
        if not self.s.headless or not self._nudged or self._greedy:
            return False
        if len(self.tool_log) > self._prereads:  # the model itself called a tool
            return False
        at = [i for i, m in enumerate(self.messages) if m is self._prompt_message]
        if not at:
            return False  # compaction replaced the prompt: nothing to cut back to
        self._greedy = True
        self.counters["greedy_retries"] += 1
        del self.messages[at[0] + 1 :]
        return True

    async def _query(self, with_tools: bool) -> Reply:
        """One model call over the budget-checked history."""
        s = self.s
        schemas = [t.schema(s.lean_schema) for t in s.tools.values()] if with_tools else []
        self.messages[:], compaction = await enforce_budget(
            self.messages,
            meter=s.meter,
            tools=schemas,
            num_ctx=s.num_ctx,
            provider=s.provider,
            model=s.model,
            emit=self._notice,
        )
        self.counters["compact_prunes"] += compaction.prunes
        self.counters["compact_summaries"] += compaction.summaries
        request = ChatRequest(
            model=s.model,
            messages=strip_old_thinking(self.messages),
            tools=schemas,
            num_ctx=s.num_ctx,
            temperature=0.0 if self._greedy else s.temperature,
            think=s.think,
            slot=s.slot,
        )
        unscaled = s.meter.unscaled(request.messages, schemas)  # what was really sent
        limits = repetition.limits_for(s.model, small=s.preread)  # preread: a small model
        reply = await retry_busy(
            lambda: stream_reply(s.provider, request, s.tools, self.emit, self.counters, limits),
            self.emit,
        )
        if reply.usage is not None:
            self._count_usage(reply.usage, unscaled, reply.generation_seconds)
        return reply

    def _count_usage(self, usage: Usage, unscaled: int, seconds: float) -> None:
        self._prompt_tokens = usage.prompt_tokens
        self._billed += usage.prompt_tokens
        self._output += usage.output_tokens
        self._gen_seconds += seconds
        self._clock.add_usage(usage)
        self.s.meter.update(usage.prompt_tokens, unscaled)
        if self.s.detect_truncation and truncation_suspected(usage.prompt_tokens, self.s.num_ctx):
            self.counters["truncations"] += 1
            self.emit(Warning(truncation_warning(self.s.num_ctx)))

    def _record_assistant(self, reply: Reply) -> None:
        self.messages.append(assistant_message(reply, len(self.messages)))
        self._open_calls = [(c.id or "", c.name) for c in reply.calls]

    async def _execute(self, call: ToolCall) -> ToolOutput:
        """Run one tool call and feed its result back; a tool never crashes the turn."""
        name = canonical_name(call.name, self.s.tools)
        if name != call.name:
            self.counters["alias_hits"] += 1
        args = call.arguments if call.arguments is not None else {"raw": call.raw_arguments}
        call_id = call.id or ""
        self.emit(ToolStart(tool=name, args=args, id=call_id))
        tool_started = time.monotonic()
        output = await self._run_tool(name, call)
        self._clock.add_tool_seconds(time.monotonic() - tool_started)
        text = scrub(output.text if output.ok else f"ERROR: {output.text}")
        self._close_call(call, text)
        self.emit(
            ToolResult(
                tool=name,
                ok=output.ok,
                preview=text[:200],
                id=call_id,
                output=text[:RESULT_OUTPUT_CAP],
            )
        )
        if output.edit is not None:
            old, new = output.edit.old, output.edit.new
            diff = preview_diff(old, new, EDIT_DIFF_LINES)
            added, removed = changed_lines(old, new)
            region = diff_region(old, new, EDIT_DIFF_LINES)
            self.emit(EditDiff(output.edit.path, added, removed, diff, region))
        if output.plan is not None:
            self.emit(Plan(items=list(output.plan)))
        self.tool_log.append((name, output.ok, describe_call(name, args).summary[:TARGET_CHARS]))
        self._track_outcome(name, output.ok)
        return output

    async def _run_tool(self, name: str, call: ToolCall) -> ToolOutput:
        tool = self.s.tools.get(name)
        if call.arguments is None:
            return ToolOutput(False, hardening.bad_arguments(name, call.raw_arguments))
        if tool is None:
            self.counters["unknown_tools"] += 1
            return ToolOutput(False, hardening.unknown_tool(call.name, self.s.tools))
        seen = self._repeats.count(name, call.arguments)
        if seen >= 3:
            self.counters["doom_loop_trips"] += 1
            if seen == 3:  # warn once per signature
                self.emit(Warning(hardening.repeat_warning(name)))
            return ToolOutput(False, hardening.REPEAT_REFUSAL)
        refusal = self.s.ctx.gate.authorize_tool(name, plan_safe=tool.plan_safe)
        if refusal is not None:
            return ToolOutput(False, refusal)
        try:
            return await tool.run(call.arguments, self.s.ctx)
        except ToolError as exc:
            return ToolOutput(False, str(exc))
        except (OSError, ValueError, TypeError, KeyError) as exc:
            log.exception("tool %s failed", name)
            return ToolOutput(False, f"{name} failed: {exc}")

    def _track_outcome(self, name: str, ok: bool) -> None:
        tool = self.s.tools.get(name)
        if ok:
            self._failures = 0
            self._changed = self._changed or bool(tool and tool.mutating)
            return
        self._failures += 1
        self.counters["tool_errors"] += 1
        if self._failures == STUCK_NUDGE_AT:
            self._stuck_nudge_due = True
        if self._failures >= STUCK_STOP_AT:
            self._close_open_calls("ERROR: not run; the turn stopped after repeated failures")
            raise TurnStopped(f"stopping the turn: {STUCK_STOP_AT} tool calls in a row failed")

    def _close_call(self, call: ToolCall, text: str) -> None:
        self.messages.append(
            {"role": "tool", "content": text, "tool_name": call.name, "tool_call_id": call.id or ""}
        )
        self._open_calls = [c for c in self._open_calls if c[0] != call.id]

    def _close_open_calls(self, text: str) -> None:
        for call_id, name in self._open_calls:
            self.messages.append(
                {"role": "tool", "content": text, "tool_name": name, "tool_call_id": call_id}
            )
        self._open_calls = []

    def _notice(self, kind: str, text: str) -> None:
        self.emit(Info(text=text) if kind == "info" else Warning(text=text))

    def _finish(self, started: float) -> TurnStats:
        seconds = self._gen_seconds
        self.stats = TurnStats(
            iterations=self._iterations,
            prompt_tokens=self._prompt_tokens,
            billed_prompt_tokens=self._billed,
            output_tokens=self._output,
            duration_ms=int((time.monotonic() - started) * 1000),
            tokens_per_sec=round(self._output / seconds, 2) if seconds > 0 else 0.0,
            **self._clock.figures(),
        )
        return self.stats

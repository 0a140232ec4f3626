"""One turn of the agent loop: run → step → query → execute, top to bottom.

A turn appends the user's message, then iterates: ask the model (streaming
its thinking and reply as events), run the tool calls it made, feed the
results back, until the model answers without calling a tool or a stopping
rule fires. Events leave through the injected `emit`; the loop never touches
a front end. Cancellation is plain asyncio task cancellation: every tool call
the model made still gets a result, so the stored conversation stays valid.

What a turn does beyond that loop lives in parts (core/loop/parts/), chosen by
the model's profile (core/loop/profile.py): reading the named files, the
whole-file format, the project's checks as judge, the nudges and refusals.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence

from msgspec import Struct, field

from rift.checks.results import CheckResult
from rift.core.context.budget import (
    enforce_budget,
    strip_old_thinking,
    truncation_suspected,
    truncation_warning,
)
from rift.core.loop import hardening, salvage
from rift.core.loop.parts import Part, Parts
from rift.core.loop.parts.checks import Checks
from rift.core.loop.parts.leftovers import Leftovers
from rift.core.loop.parts.nudge import ApplyNudge
from rift.core.loop.parts.preread import Preread
from rift.core.loop.parts.repeats import RepeatedCalls
from rift.core.loop.parts.stuck import Stuck, TurnStopped
from rift.core.loop.parts.wholefile import WholeFile
from rift.core.loop.profile import LoopProfile
from rift.core.loop.reply import Reply, assistant_message, stream_reply
from rift.core.loop.setup import TurnSetup
from rift.core.loop.timings import TurnClock
from rift.core.permissions.hunks import changed_lines, diff_region, preview_diff
from rift.errors import ToolError
from rift.events import (
    EDIT_DIFF_LINES,
    RESULT_OUTPUT_CAP,
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
from rift.models.base import PREREAD_ID, ChatRequest, Message, ToolCall, Usage
from rift.pool.busy import retry_busy
from rift.text.hygiene import scrub
from rift.tools import canonical_name
from rift.tools.base import ToolOutput
from rift.tools.calls import describe_call

__all__ = ["Turn", "TurnStopped", "parts_for"]

log = logging.getLogger("rift.turn")
TARGET_CHARS = 200
"""A call's summary in the trace's tool list is cut here."""


def parts_for(profile: LoopProfile) -> list[Part]:
    """The repairs a turn runs with, in hook order, for a model's profile."""
    parts: list[Part] = []
    if profile.preread:
        parts.append(Preread())
    parts += [RepeatedCalls(), Stuck()]
    if profile.small:
        parts.append(Leftovers())
    parts += [Checks(profile.check_rounds), ApplyNudge()]
    if profile.whole_file_lines:
        parts.append(WholeFile(profile.whole_file_lines))  # last: it answers after the checks
    return parts


def _own(call: ToolCall) -> bool:
    """A call rift makes itself (a preread, a check): no part judges it, and it changes
    nothing the model did."""
    return (call.id or "").startswith(("rift_", PREREAD_ID))


class _Tally(Struct):
    """What the turn counts for its stats, and where it started."""

    prompt: Message | None = None
    refusals_at_start: int = 0
    tool_calls_at_prompt: int = 0
    iterations: int = 0
    prompt_tokens: int = 0
    billed: int = 0
    output: int = 0
    gen_seconds: float = 0.0
    clock: TurnClock = field(default_factory=TurnClock)
    """Where the time went: prefill, decode, cached prompt, tools (core/loop/timings.py)."""


class Turn:
    """A single turn over a shared message list."""

    def __init__(self, setup: TurnSetup, messages: list[Message], emit: Callable[[Event], None]):
        self.s = setup
        self.messages = messages
        self.emit = emit
        self.parts = Parts(parts_for(setup.profile))
        self.words = ""
        """What the person typed: parts read file names from it, never a decision."""
        self.changed = False
        self.stats = TurnStats()
        self.cancelled = False
        self.outcome = "answered"
        self.reason = ""
        """Why the turn did not simply answer, in words ("" when it did)."""
        self.counters: Counter[str] = Counter()
        """Failure and repair counts for traces (doom_loop_trips, tool_errors, ...)."""
        self.tool_log: list[tuple[str, bool, str]] = []
        """(tool, ok, target) per call, for traces."""
        self._open_calls: list[tuple[str, str]] = []
        self._tally = _Tally()

    async def run(
        self, prompt: str, words: str | None = None, images: Sequence[str] = ()
    ) -> TurnStats:
        """Run the turn to its end; cancellation is absorbed after cleaning up.

        `words` is what the person typed (without attached files or notes); the parts
        find the files it names there. `images` (data URLs) ride on the prompt's message.
        """
        started = time.monotonic()
        self.words = prompt if words is None else words
        self.s.ctx.services.task_words = self.words  # the paths it names (tools/protected.py)
        self._tally.refusals_at_start = self.s.ctx.gate.refusals
        message: Message = {"role": "user", "content": prompt}
        if images:
            message["images"] = list(images)
        self._tally.prompt = message
        self.messages.append(message)
        try:
            for n in range(1, self.s.max_iterations + 1):
                if await self._step(n):
                    break
            else:  # every iteration went to tool calls: the budget ran out first
                self.outcome = "wrapped"
                self.reason = f"the turn used all {self.s.max_iterations} iterations"
        except TurnStopped as stop:
            self._close_open_calls("ERROR: not run; the turn stopped after repeated failures")
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

    @property
    def checks(self) -> CheckResult | None:
        """The project's checks as the turn left them, when they ran (parts/checks.py)."""
        judge = self.parts.find(Checks)
        return judge.result if judge is not None else None

    async def _step(self, n: int) -> bool:
        """One iteration; True when the turn is over."""
        self._tally.iterations = n
        self.emit(Iteration(n=n))
        await self.parts.before_request(self, n)
        last_round = n == self.s.max_iterations and n >= 3
        if last_round:
            self.counters["wrap_ups"] += 1
            self.outcome = "wrapped"
            self.reason = f"the turn used all {self.s.max_iterations} iterations"
        reply = self.parts.after_reply(self, await self._query(with_tools=not last_round))
        self.record_assistant(reply)
        if reply.calls:
            final = False
            for call in reply.calls:
                output = await self.execute(call)
                final = await self.parts.after_tool_result(self, call, output) or final
            if not final:
                return False
        if last_round:
            return True
        return not await self.parts.before_end(self, reply)

    # ------------------------------------------------------------ for the parts

    def say(self, text: str) -> None:
        """A `[system]` message to the model, read with its next request."""
        self.messages.append({"role": "user", "content": text})

    def note(self, text: str) -> None:
        """A line for the person."""
        self.emit(Info(text=text))

    def answer(self, text: str) -> None:
        """rift's own words as the end of the turn's reply (shown and kept in the history)."""
        last = self.messages[-1] if self.messages else None
        if last is not None and last["role"] == "assistant" and not last.get("tool_calls"):
            said = str(last.get("content") or "")
            text = f"\n\n{text}" if said.strip() else text
            last["content"] = said + text
        else:
            self.messages.append({"role": "assistant", "content": text})
        self.emit(Content(text=text))

    def refused_by_person(self) -> bool:
        """A person said no to something this turn (no nudge after that)."""
        return self.s.ctx.gate.refusals != self._tally.refusals_at_start

    def model_called_tools(self) -> bool:
        """The model itself called a tool this turn (rift's own reads and checks aside)."""
        return any(not name.startswith("rift:") for name, _, _ in self.tool_log)

    def cut_back_to_prompt(self) -> bool:
        """Drop everything after the prompt (a greedy retry starts over); False when
        compaction replaced the prompt."""
        at = [i for i, m in enumerate(self.messages) if m is self._tally.prompt]
        if not at:
            return False
        del self.messages[at[0] + 1 :]
        return True

    async def call(self, name: str, arguments: dict[str, object]) -> ToolOutput:
        """Run a tool on the model's behalf, recorded as if it had asked."""
        call = ToolCall(id=f"rift_{name}_{len(self.messages)}", name=name, arguments=arguments)
        self.record_assistant(Reply(calls=[call]))
        return await self.execute(call)

    def record_assistant(self, reply: Reply) -> None:
        self.messages.append(assistant_message(reply, len(self.messages)))
        self._open_calls = [(c.id or "", c.name) for c in reply.calls]

    async def execute(
        self,
        call: ToolCall,
        *,
        record: bool = True,
        shown: Callable[[str], str] | None = None,
    ) -> ToolOutput:
        """Run one tool call; its result goes back to the model when `record` (cut by
        `shown` when given). A tool never crashes the turn."""
        name = canonical_name(call.name, self.s.tools)
        if name != call.name:
            self.counters["alias_hits"] += 1
        args = call.arguments if call.arguments is not None else {"raw": call.raw_arguments}
        call_id = call.id or ""
        self.emit(ToolStart(tool=name, args=args, id=call_id))
        tool_started = time.monotonic()
        output = await self._run_tool(name, call)
        self._tally.clock.add_tool_seconds(time.monotonic() - tool_started)
        text = scrub(output.text if output.ok else f"ERROR: {output.text}")
        if record:
            self._close_call(call, shown(text) if shown is not None else text)
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
        own = _own(call)
        label = f"rift:{name}" if own else name
        self.tool_log.append((label, output.ok, describe_call(name, args).summary[:TARGET_CHARS]))
        tool = self.s.tools.get(name)
        if output.ok and tool is not None and tool.mutating and not own:
            self.changed = True
        return output

    # ---------------------------------------------------------------- inside

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
        nudge = self.parts.find(ApplyNudge)
        whole = self.parts.find(WholeFile)
        request = ChatRequest(
            model=s.model,
            messages=strip_old_thinking(self.messages),
            tools=schemas,
            num_ctx=s.num_ctx,
            temperature=0.0 if nudge is not None and nudge.greedy else s.temperature,
            think=s.think,
            slot=s.slot,
            num_predict=whole.reply_tokens(s.ctx.cwd) if whole is not None else None,
        )
        unscaled = s.meter.unscaled(request.messages, schemas)  # what was really sent
        limits = repetition.limits_for(s.model, small=s.profile.small)
        reply = await retry_busy(
            lambda: stream_reply(s.provider, request, s.tools, self.emit, self.counters, limits),
            self.emit,
        )
        if reply.usage is not None:
            self._count_usage(reply.usage, unscaled, reply.generation_seconds)
        return reply

    def _count_usage(self, usage: Usage, unscaled: int, seconds: float) -> None:
        tally = self._tally
        tally.prompt_tokens = usage.prompt_tokens
        tally.billed += usage.prompt_tokens
        tally.output += usage.output_tokens
        tally.gen_seconds += seconds
        tally.clock.add_usage(usage)
        self.s.meter.update(usage.prompt_tokens, unscaled)
        if self.s.detect_truncation and truncation_suspected(usage.prompt_tokens, self.s.num_ctx):
            self.counters["truncations"] += 1
            self.emit(Warning(truncation_warning(self.s.num_ctx)))

    async def _run_tool(self, name: str, call: ToolCall) -> ToolOutput:
        tool = self.s.tools.get(name)
        if call.arguments is None:
            output = ToolOutput(False, hardening.bad_arguments(name, call.raw_arguments))
        elif tool is None:
            self.counters["unknown_tools"] += 1
            output = ToolOutput(False, hardening.unknown_tool(call.name, self.s.tools))
        else:
            output = await self._authorized_run(tool.name, call)
        return output

    async def _authorized_run(self, name: str, call: ToolCall) -> ToolOutput:
        tool = self.s.tools[name]
        refusal = None if _own(call) else await self.parts.before_tool(self, call, tool)
        if refusal is not None:
            return ToolOutput(False, refusal)
        refusal = self.s.ctx.gate.authorize_tool(name, plan_safe=tool.plan_safe)
        if refusal is not None:
            return ToolOutput(False, refusal)
        try:
            return await tool.run(call.arguments or {}, self.s.ctx)
        except ToolError as exc:
            return ToolOutput(False, str(exc))
        except (OSError, ValueError, TypeError, KeyError) as exc:
            log.exception("tool %s failed", name)
            return ToolOutput(False, f"{name} failed: {exc}")

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
        tally = self._tally
        seconds = tally.gen_seconds
        self.stats = TurnStats(
            iterations=tally.iterations,
            prompt_tokens=tally.prompt_tokens,
            billed_prompt_tokens=tally.billed,
            output_tokens=tally.output,
            duration_ms=int((time.monotonic() - started) * 1000),
            tokens_per_sec=round(tally.output / seconds, 2) if seconds > 0 else 0.0,
            **tally.clock.figures(),
        )
        return self.stats

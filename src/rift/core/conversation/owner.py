"""The conversation owner: one conversation's lifecycle, the same on every face.

`rift --serve`, `rift -p`, the TUI and ACP translate their input into these calls
and render the events that come back through the `emit` they gave `start_agent`.
What keeps rift's promises the same everywhere:

- One piece of work at a time. `_start` is the only place work begins: busy is set
  before any await, and only the end of that same task clears it. A turn's task
  includes its after-turn work (idle compaction, `context`); a command sent after
  `done` but before that ends is chained behind it, never run under it. Otherwise
  work while busy is refused with `warning` (code "busy"), not queued.
- The owner holds the state: busy, the work task, `interrupted`, `session_path`
  and every structural change to `messages`; the runtime (runtime.py) runs a
  turn's model loop and swaps models when told.
- Every undecided review is closed after a turn, on `cancel` and on `close`.
- Nothing is lost: saved after every turn (before `done`) and at close.

Work cancelled before its task ran still ends as a cancel does: `warning`, `done`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from rift.core.conversation.daily import Daily
from rift.core.conversation.prepare import Prepared, prepare, task_note
from rift.core.conversation.readings import Readings
from rift.core.conversation.refusal import Refusal
from rift.core.conversation.swarming import Swarming
from rift.core.conversation.upkeep import (
    cancelled_before_start,
    compact_now,
    discard_if_empty,
    remember,
    rewind_cut,
    save,
)
from rift.core.permissions.gate import MODES
from rift.core.sessions.store import INTERRUPT_NOTE, SessionStore, history_for
from rift.errors import RiftError
from rift.events import ApprovalChanged, Done, History, Info, SessionChanged, TaskFinished, Warning

if TYPE_CHECKING:
    from rift.config import Config
    from rift.core.conversation.runtime import Agent, ModelBinding
    from rift.models.attachments import Attachments
    from rift.swarm.candidates import StartCandidate

BUSY_TEXT = "turn in progress — cancel it or wait for done"


class Conversation(Readings, Swarming, Daily):
    """Owns one conversation: its work, its messages, its session, its end."""

    def __init__(self, agent: Agent, session_path: Path, start_candidate: StartCandidate) -> None:
        self._agent = agent
        self._start_candidate = start_candidate  # a race's candidates start with it
        self.session_path = session_path
        """The session file; a new one on `new_conversation`."""
        self.interrupted = False
        """The last turn was cancelled: the next prompt starts with INTERRUPT_NOTE."""
        self.busy = False
        """Work is running, after-turn work included; set and cleared only by `_start`."""
        self._work: asyncio.Task[Any] | None = None
        self._settling = False
        """The current work is a turn whose `done` is out; only after-turn work remains,
        and new work is chained behind it instead of refused."""
        self._started = False
        """The current work's task has begun running (cancel can reach it directly)."""
        self._cancel_early = False
        """Cancel arrived before the task ran: it ends at once, the way a cancel would."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False
        self.auto_continue = False
        """Opt-in (serve `hello` auto_continue): a background task that finishes while the
        conversation is idle starts a turn on its notification, as the original's TUI did."""
        self._notes: list[str] = []
        """Task notifications not yet seen by the model; they lead the next turn's text."""
        self._held = False
        """A cancel suppressed the pending notifications' automatic turn (until the next prompt)."""
        agent.tasks.on_finished = self._task_finished

    # ------------------------------------------------------------------ turns

    def submit(self, text: str, attachments: Attachments | None = None) -> Literal[True] | Refusal:
        """Start a turn on `text`; a falsy `Refusal` (and a warning) when it cannot now.

        Skills (`/skill:name task`) and `@path` mentions are expanded here, once.
        `attachments` (models/attachments.py): its text files follow the prompt, its
        images ride on the prompt's message (vision models only).
        Empty text starts nothing and says nothing.
        """
        if not text.strip():
            return Refusal("empty", "")
        refusal = self._busy_refusal()
        if refusal is not None:
            return refusal
        prepared = prepare(self._agent, text, vision=self.sees)
        if isinstance(prepared, Refusal):
            return prepared
        if attachments is not None:
            images = prepared.images + attachments.images
            prepared = Prepared(prepared.text + attachments.text, prepared.words, images)
        self._agent.offer_trust()  # the project's plugins/hooks/servers ask once, no wait
        self._held = False
        self._begin_turn(prepared)
        return True

    async def run(self, text: str, attachments: Attachments | None = None) -> Done | None:
        """Submit and wait for the turn's `done`; None when it did not start."""
        if not self.submit(text, attachments):
            return None
        result = await self.wait()
        return result if isinstance(result, Done) else None

    async def wait(self) -> object:
        """Wait for the current work to end; its result (a turn's `Done`), or None."""
        work = self._work
        if work is None:
            return None
        done, _ = await asyncio.wait({work})
        task = done.pop()
        return None if task.cancelled() or task.exception() is not None else task.result()

    def cancel(self) -> bool:
        """Cancel the running work and pending reviews (after-turn work finishes); True if any."""
        self._agent.broker.close_reviews()
        self._held = True  # Esc also means "not now" to queued task notifications
        work = self._work
        if work is None or work.done() or not self.busy or self._settling:
            return False
        if self._started:
            work.cancel()
        else:
            self._cancel_early = True
        return True

    async def close(self) -> None:
        """rift is exiting (EOF, quit, the editor went away): cancel, close every review
        and ask, wait for the work to unwind, save, release connections."""
        if self._closed:
            return
        self._closed = True
        self._agent.broker.close_reviews()
        self._agent.broker.drop_all()  # pending asks resolve as "no answer" = deny
        self.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._save()
        discard_if_empty(self.session_path)
        await self._agent.aclose()

    # --------------------------------------------------------------- commands

    def set_model(self, name: str) -> Literal[True] | Refusal:
        """Start a live model switch (its work ends True or with the failure's refusal);
        a refusal (and a warning) when busy or unnamed."""
        name = name.strip()
        if not name:
            self._agent.emit(Warning("set_model needs a 'model' field"))
            return Refusal("empty", "set_model needs a 'model' field")
        busy = self._busy_refusal("turn in progress — cancel it or wait before switching models")
        if busy is not None:
            return busy
        self._start(self._switch(name), "model switch")
        return True

    def set_approval(self, on: bool, *, announce: bool = True) -> None:
        """Approval on (ask) or off (auto); acked with `approval_changed` unless
        `announce` is False (serve's `hello`, whose answer is `capabilities`)."""
        self._agent.approval.enabled = on
        if announce:
            self._approval_changed()

    def set_mode(self, mode: str, *, announce: bool = True) -> bool:
        """Switch the approval mode (acked with `approval_changed` unless `announce` is
        False); False for a name that is not one of MODES."""
        if mode not in MODES:
            return False
        self._agent.approval.mode = mode
        if announce:
            self._approval_changed()
        return True

    def undo(self) -> bool:
        """Revert the last turn's file changes (info or warning)."""
        if self._refused_busy("turn in progress — cancel it or wait before undoing"):
            return False
        return self._now_or_after_turn(self._agent.undo, "undo")

    def rewind(self, n: int = 1) -> bool:
        """Drop the last `n` turns from the conversation and undo their file changes."""
        if self._refused_busy():
            return False
        return self._now_or_after_turn(lambda: self._rewind(n), "rewind")

    def compact(self) -> bool:
        """Start a compaction now (prune old outputs, summarize); busy while it runs."""
        if self._refused_busy():
            return False
        self._start(self._compact(), "compaction")
        return True

    def remember(self, fact: str) -> bool:
        """Save `fact` to the project memory as the `remember` tool would (`/remember`):
        gated as an edit of `.rift/memory.md`, so it is asked or reviewed like one; busy
        while it runs. The outcome arrives as `info` or `warning`."""
        if self._refused_busy():
            return False
        self._start(remember(self._agent, fact), "remember")
        return True

    def new_conversation(self) -> bool:
        """What `/clear` means: the old session stays saved and resumable; the
        conversation starts empty in a new session file."""
        if self._refused_busy():
            return False
        return self._now_or_after_turn(self._clear, "new conversation")

    def set_option(
        self,
        *,
        temperature: float | None = None,
        num_ctx: int | None = None,
        host: str | None = None,
    ) -> bool:
        """Change sampling, context size or host on the same conversation: the messages
        and the undo journal carry over. A host or context change re-runs the model's
        preflight (as set_model does) and is acked the same way."""
        if self._refused_busy():
            return False
        changes: dict[str, object] = {}
        if temperature is not None:
            changes["temperature"] = temperature
        if num_ctx is not None:
            changes.update(num_ctx=num_ctx, num_ctx_explicit=True)
        if host is not None:
            changes.update(host=host, host_explicit=True)
        if not changes:
            return False
        config = msgspec.structs.replace(self._agent.config, **changes)
        if num_ctx is None and host is None:
            self._agent.config = config
            self._agent.emit(Info(f"temperature set to {temperature}"))
            return True
        self._start(self._rebind(config), "option change")
        return True

    # ------------------------------------------------------------------ work

    def _refused_busy(self, text: str = BUSY_TEXT) -> bool:
        return self._busy_refusal(text) is not None

    def _busy_refusal(self, text: str = BUSY_TEXT) -> Refusal | None:
        if not self.busy or self._settling:
            return None
        self._agent.emit(Warning(text, code="busy"))
        return Refusal("busy", text)

    def _start(self, body: Coroutine[Any, Any, object], kind: str = "turn") -> None:
        """Begin work: busy now, before any await; idle again only when this task ends.

        Work started while a turn's after-turn work runs waits for it first.
        """
        previous = self._work if self._settling else None
        self.busy = True
        self._settling = False
        self._started = False
        self._cancel_early = False

        async def run() -> object:
            self._started = True
            try:
                if previous is not None and not previous.done():
                    try:
                        await asyncio.wait({previous})
                    except asyncio.CancelledError:
                        task.uncancel()  # handled: it ends the way a cancel does
                        self._cancel_early = True
                if self._cancel_early:
                    body.close()
                    return cancelled_before_start(self._agent, kind)
                return await body
            finally:
                if self._work is task:
                    self.busy = False
                    self._settling = False

        task = asyncio.create_task(run())
        self._work = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _now_or_after_turn(self, command: Callable[[], bool], kind: str) -> bool:
        """Run a command that edits the conversation now, or, while a turn's after-turn
        work runs, as work chained behind it (True: it was accepted)."""
        if not self._settling:
            return command()

        async def later() -> bool:
            return command()

        self._start(later(), kind)
        return True

    def _spawn(self, body: Coroutine[Any, Any, object]) -> None:
        """Side work that is not the conversation's (closing a replaced provider)."""
        task = asyncio.create_task(body)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ----------------------------------------------------------------- turns

    def _begin_turn(self, prepared: Prepared) -> None:
        """Start a turn, with the pending task notifications ahead of its text.

        Notes are added after skill/mention expansion: a task's output must never
        be read as an `@path` to attach.
        """
        if self._notes:
            notes = "\n\n".join(self._notes)
            self._notes.clear()
            text = f"{notes}\n\n{prepared.text}".strip()
            prepared = Prepared(text=text, words=prepared.words, images=prepared.images)
        self._start(self._turn(prepared))

    async def _turn(self, prepared: Prepared) -> Done:
        """The turn, then everything that belongs to its end, in the protocol's order:
        reviews closed, saved, `done`, trace; then idle compaction and `context`."""
        agent = self._agent
        try:
            text = prepared.text
            if self.interrupted:
                text, self.interrupted = INTERRUPT_NOTE + text, False
            end = await agent.run_turn(text, prepared.words, prepared.images)
            self.interrupted = end.cancelled
            self._save()  # before done: a turn a client saw end is on disk
            agent.emit(end.done)
            agent.trace(end)
            self._settling = True
            await self._after_turn()
            return end.done
        finally:  # notifications that arrived during the turn may start the next one
            asyncio.get_running_loop().call_soon(self._continue_on_notes)

    async def _after_turn(self) -> None:
        """Idle compaction (saved when it ran), then the fresh context gauge."""
        agent = self._agent
        try:
            messages, compaction = await agent.fit_budget()
        except RiftError as exc:
            agent.emit(Warning(f"compaction failed: {exc}"))
        else:
            agent.messages[:] = messages
            if compaction.prunes or compaction.summaries:
                self._save()
        agent.emit(agent.context_gauge())

    def _task_finished(self, event: TaskFinished) -> None:
        self._notes.append(task_note(event))
        self._continue_on_notes()

    def _continue_on_notes(self) -> None:
        """The opt-in auto-turn: only when idle, open, not held by a cancel, with notes."""
        if not self._notes or not self.auto_continue or self._held:
            return
        if self.busy or self._closed:
            return
        self._agent.emit(Info("background task finished — continuing"))
        self._begin_turn(Prepared(text="", words="[task notification]"))

    # ------------------------------------------------------------- the rest

    async def _switch(self, name: str) -> Literal[True] | Refusal:
        try:
            old = await self._agent.set_model(name)
        except asyncio.CancelledError:
            self._agent.emit(Warning("model switch cancelled"))
            raise
        return self._replaced(old)

    async def _rebind(self, config: Config) -> Literal[True] | Refusal:
        agent = self._agent
        kept = agent.config
        agent.config = config
        old = await agent.set_model(agent.model)
        if isinstance(old, Refusal):
            agent.config = kept  # the switch failed: keep what worked
        return self._replaced(old)

    def _replaced(self, old: ModelBinding | Refusal) -> Literal[True] | Refusal:
        """A switch ended; the replaced provider's connections close on the side."""
        if isinstance(old, Refusal):
            return old
        self._spawn(old.provider.aclose())
        self._spawn(self._agent.check_server(old.route))  # beside the conversation, brief
        return True

    async def _compact(self) -> None:
        agent = self._agent
        before = agent.context_gauge().used
        outcome = await compact_now(agent)
        if outcome is None:
            return
        messages, pruned = outcome
        agent.messages[:] = messages
        self._save()
        after = agent.context_gauge()
        agent.emit(
            Info(f"compacted: ~{before} → ~{after.used} tokens ({pruned} old outputs pruned)")
        )
        agent.emit(after)

    def _rewind(self, n: int) -> bool:
        agent = self._agent
        cut = rewind_cut(agent, n)
        if cut is None:
            return False
        start, restored = cut
        del agent.messages[start:]
        self._save()
        agent.emit(Info(f"rewound {n} turn(s) — {restored}"))
        agent.emit(History(messages=history_for(agent.messages)))
        agent.emit(agent.context_gauge())
        return True

    def _clear(self) -> bool:
        agent = self._agent
        self._save()
        old = self.session_path
        discard_if_empty(old)
        del agent.messages[1:]  # the system prompt stays
        agent.journal.clear()
        self.interrupted = False
        self.session_path = SessionStore(agent.config.paths.sessions_dir).reserve()
        agent.emit(SessionChanged(session=str(self.session_path), previous=str(old)))
        agent.emit(agent.context_gauge())
        return True

    def _approval_changed(self) -> None:
        self._agent.emit(ApprovalChanged(approve=self.approve, mode=self.mode))

    def _save(self) -> None:
        """The session on disk now (never an empty one: see `save`)."""
        save(self._agent, self.session_path)

"""The conversation owner: one conversation's lifecycle, the same on every face.

Every face translates its input into these calls and renders the events that come back
through the `emit` it gave `start_agent`; the slash commands (core/commands/) get this
owner as the narrow `Owner` and start their work with `work`. What keeps rift's promises
the same everywhere:

- One piece of work at a time. `work` (and `submit`) is the only place work begins:
  busy is set before any await, and only the end of that same task clears it. A
  turn's task includes its after-turn work (idle compaction, `context`); work sent
  after `done` but before that ends is chained behind it, never run under it.
  Otherwise work while busy is refused with `warning` (code "busy"), or with
  `when_busy="queue"` waits and starts when the work ends.
- The owner holds the state and makes every structural change to `messages`; the
  runtime (runtime.py) runs a turn's model loop and swaps models when told.
- Every undecided review is closed after a turn, on `cancel` and on `close`.
- Nothing is lost: saved after every turn (before `done`) and at close.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from msgspec import Struct
from msgspec.structs import replace

from rift.core.conversation.prepare import Prepared, prepare, task_note
from rift.core.conversation.refusal import Refusal
from rift.core.conversation.upkeep import cancelled_before_start, discard_if_empty, save
from rift.core.sessions.store import INTERRUPT_NOTE
from rift.errors import RiftError
from rift.events import Done, Info, TaskFinished, Warning

if TYPE_CHECKING:
    from rift.config.load import Config
    from rift.core.conversation.runtime import Agent
    from rift.extend.skills import Skill
    from rift.models.attachments import Attachments

BUSY_TEXT = "turn in progress — cancel it or wait for done"
WhenBusy = Literal["queue", "refuse"]
T = TypeVar("T")


Ending = Literal["answered", "stopped", "wrapped", "cancelled", "error", "refused"]


class TurnResult(Struct, frozen=True):
    """How a submitted prompt's turn ended: its `done` (None when it never ran) and the
    ending a face reports ("wrapped": the turn used its whole iteration budget)."""

    done: Done | None
    ending: Ending


class Submitted(Struct, frozen=True):
    """What `submit` did with a prompt: "started", "queued" behind the running work, or
    "refused" (falsy; `refusal` says why). `result` resolves when its own turn has ended."""

    status: Literal["started", "queued", "refused"]
    began: asyncio.Future[bool]
    """True once the prompt's turn has started; False when it never will (refused when
    its turn came, withdrawn by `take_back`, or the conversation closed first)."""
    result: asyncio.Future[TurnResult]
    refusal: Refusal | None = None

    def __bool__(self) -> bool:
        return self.status != "refused"


class ConversationState(Struct, frozen=True):
    """A snapshot of what a face shows about the conversation (`Conversation.state`)."""

    model: str
    num_ctx: int
    approve: bool
    mode: str
    """The approval mode (permissions/gate.py MODES); `approve` is its serve-protocol flag."""
    sees: bool
    """The model reports vision: images in a prompt can reach it."""
    edit_review: bool
    """Writes come as `edit_review` (serve after hello, the TUI) rather than asks."""
    config: Config
    skills: dict[str, Skill]
    queued: tuple[str, ...]
    """Prompts waiting for the running work, oldest first, as typed."""


class Conversation:
    """Owns one conversation: its work, its queue, its messages, its session, its end."""

    def __init__(self, agent: Agent, session_path: Path, notes: tuple[str, ...] = ()) -> None:
        self._agent = agent
        self.session_path = session_path
        """The session file; commands move it (`/clear`, `/fork`, `/save`)."""
        self.interrupted = False
        """The last turn was cancelled: the next prompt starts with INTERRUPT_NOTE."""
        self._busy = False
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
        self._queue: list[tuple[str, Attachments | None, Submitted]] = []
        self.auto_continue = False
        """Opt-in (serve `hello` auto_continue): a background task that finishes while the
        conversation is idle starts a turn on its notification, as the original's TUI did."""
        self._notes: list[str] = list(notes)
        """Notes not yet seen by the model (finished tasks; after a resume, the files the
        session touched); they lead the next turn's text."""
        self._held = False
        """A cancel suppressed the pending notifications' automatic turn (until the next prompt)."""
        agent.tasks.on_finished = self._task_finished

    @property
    def agent(self) -> Agent:
        """The runtime, for the commands (core/commands/) and startup; faces use `state`."""
        return self._agent

    @agent.setter
    def agent(self, agent: Agent) -> None:
        self._agent = agent  # `/restart` rebuilds it around the same conversation
        agent.tasks.on_finished = self._task_finished

    @property
    def busy(self) -> bool:
        """Work is running, after-turn work included; set and cleared only by `work`."""
        return self._busy

    @property
    def state(self) -> ConversationState:
        agent = self._agent
        binding = agent.binding
        return ConversationState(
            model=agent.model,
            num_ctx=agent.num_ctx,
            approve=agent.approval.enabled,
            mode=agent.approval.mode,
            sees=binding.route.traits.vision and binding.info.vision,
            edit_review=agent.broker.edit_review,
            config=agent.config,
            skills=agent.skills,
            queued=tuple(text for text, _, _ in self._queue),
        )

    def submit(
        self,
        text: str,
        attachments: Attachments | None = None,
        *,
        when_busy: WhenBusy = "refuse",
    ) -> Submitted:
        """Start a turn on `text`, or queue it behind the running work (`when_busy="queue"`);
        refused (falsy, with a warning) when it cannot run, and empty text says nothing. Skills
        and `@path` mentions expand when the turn starts; `attachments` follow the prompt."""
        loop = asyncio.get_running_loop()
        submitted = Submitted("started", loop.create_future(), loop.create_future())
        if not text.strip():
            return _refused(submitted, Refusal("empty", ""))
        if (self._busy and not self._settling) or (self._queue and when_busy == "queue"):
            if when_busy == "queue" and not self._closed:
                queued = replace(submitted, status="queued")
                self._queue.append((text, attachments, queued))
                return queued
            refusal = self._busy_refusal()  # warns; None only when closed with a queue
            return _refused(submitted, refusal if refusal is not None else Refusal("busy", ""))
        return self._begin_prompt(text, attachments, submitted)

    def take_back(self) -> str | None:
        """Withdraw the newest queued prompt (the TUI's Esc); its text, or None."""
        if not self._queue:
            return None
        text, _, submitted = self._queue.pop()
        _refused(submitted, Refusal("withdrawn", ""))
        return text

    async def run(self, text: str, attachments: Attachments | None = None) -> Done | None:
        """Submit and wait for the turn's `done`; None when it did not start."""
        if self.submit(text, attachments).status != "started":
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
        """Cancel the running work, closing every pending review first; True when something was
        running (a turn's after-turn work finishes; queued prompts stay queued)."""
        self._agent.broker.close_reviews()
        self._held = True  # Esc also means "not now" to queued task notifications
        work = self._work
        if work is None or work.done() or not self._busy or self._settling:
            return False
        if self._started:
            work.cancel()
        else:
            self._cancel_early = True
        return True

    async def close(self) -> None:
        """rift is exiting: cancel, close every review and ask, wait for the work to unwind,
        save, release connections."""
        if self._closed:
            return
        self._closed = True
        while self._queue:
            self.take_back()
        self._agent.broker.close_reviews()
        self._agent.broker.drop_all()  # pending asks resolve as "no answer" = deny
        self.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self.save()
        discard_if_empty(self.session_path)
        await self._agent.aclose()

    def work(
        self,
        body: Coroutine[Any, Any, object] | Callable[[], bool],
        kind: str,
        *,
        busy_text: str = BUSY_TEXT,
    ) -> bool:
        """Begin a command's work under the busy rule; False (and a `busy` warning) when other
        work runs. A coroutine runs as the conversation's work, reached by `cancel`; a plain
        function runs now, or chained behind a turn's after-turn work."""
        if self._busy_refusal(busy_text) is not None:
            if not callable(body):
                body.close()
            return False
        if callable(body):
            if not self._settling:
                return body()
            command = body

            async def later() -> bool:
                return command()

            body = later()
        self._start(body, kind)
        return True

    def spawn(self, body: Coroutine[Any, Any, object]) -> None:
        """Side work that is not the conversation's (closing a replaced provider, /btw)."""
        task = asyncio.create_task(body)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def save(self) -> None:
        """The session on disk now (never an empty one: see `save`)."""
        save(self._agent, self.session_path)

    def _busy_refusal(self, text: str = BUSY_TEXT) -> Refusal | None:
        if not self._busy or self._settling:
            return None
        self._agent.emit(Warning(text, code="busy"))
        return Refusal("busy", text)

    def _start(self, body: Coroutine[Any, Any, object], kind: str = "turn") -> None:
        """Begin work: busy now, before any await; idle again only when this task ends. Work
        started during a turn's after-turn work waits for it first."""
        previous = self._work if self._settling else None
        self._busy = True
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
                    self._busy = False
                    self._settling = False
                    asyncio.get_running_loop().call_soon(self._next)

        task = asyncio.create_task(run())
        self._work = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _next(self) -> None:
        """The work ended: the oldest queued prompt starts, else pending notifications may."""
        while self._queue and not self._busy and not self._closed:
            text, attachments, submitted = self._queue.pop(0)
            if self._begin_prompt(text, attachments, submitted):
                return
        self._continue_on_notes()

    def _begin_prompt(
        self, text: str, attachments: Attachments | None, submitted: Submitted
    ) -> Submitted:
        agent = self._agent
        state = agent.binding
        prepared = prepare(agent, text, vision=state.route.traits.vision and state.info.vision)
        if isinstance(prepared, Refusal):
            return _refused(submitted, prepared)
        if attachments is not None:
            images = prepared.images + attachments.images
            prepared = Prepared(prepared.text + attachments.text, prepared.words, images)
        agent.offer_trust()  # the project's plugins/hooks/servers ask once, no wait
        self._held = False
        self._begin_turn(prepared, submitted.result)
        _settle(submitted.began, True)
        return submitted

    def _begin_turn(
        self, prepared: Prepared, result: asyncio.Future[TurnResult] | None = None
    ) -> None:
        """Start a turn with the pending task notes ahead of its text, added after expansion so
        a task's output is never read as an `@path` to attach."""
        if self._notes:
            notes = "\n\n".join(self._notes)
            self._notes.clear()
            text = f"{notes}\n\n{prepared.text}".strip()
            prepared = Prepared(text=text, words=prepared.words, images=prepared.images)
        self._start(self._turn(prepared))
        if result is not None:
            max_iterations = self._agent.config.max_iterations
            work = self._work
            assert work is not None
            work.add_done_callback(lambda task: _settle(result, _ended(task, max_iterations)))

    async def _turn(self, prepared: Prepared) -> Done:
        """The turn, then everything that belongs to its end, in the protocol's order:
        reviews closed, saved, `done`, trace; then idle compaction and `context`."""
        agent = self._agent
        text = prepared.text
        if self.interrupted:
            text, self.interrupted = INTERRUPT_NOTE + text, False
        end = await agent.run_turn(text, prepared.words, prepared.images)
        self.interrupted = end.cancelled
        self.save()  # before done: a turn a client saw end is on disk
        agent.emit(end.done)
        agent.trace(end)
        self._settling = True
        await self._after_turn()
        return end.done

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
                self.save()
        agent.emit(agent.context_gauge())

    def _task_finished(self, event: TaskFinished) -> None:
        self._notes.append(task_note(event))
        self._continue_on_notes()

    def _continue_on_notes(self) -> None:
        """The opt-in auto-turn: only when idle, open, not held by a cancel, with notes."""
        if not self._notes or not self.auto_continue or self._held or self._busy or self._closed:
            return
        self._agent.emit(Info("background task finished — continuing"))
        self._begin_turn(Prepared(text="", words="[task notification]"))


def _settle(future: asyncio.Future[T], value: T) -> None:
    if not future.done():  # nobody waits on a future cancelled with its loop
        future.set_result(value)


def _refused(submitted: Submitted, refusal: Refusal) -> Submitted:
    _settle(submitted.began, False)
    _settle(submitted.result, TurnResult(None, "refused"))
    return replace(submitted, status="refused", refusal=refusal)


def _ended(task: asyncio.Task[Any], max_iterations: int) -> TurnResult:
    """A turn's task ended: how (a cancelled task, or one cancelled before it ran, ended
    "cancelled"; a turn that used every iteration "wrapped")."""
    if task.cancelled():
        return TurnResult(None, "cancelled")
    if task.exception() is not None:
        return TurnResult(None, "error")
    done = task.result()
    if not isinstance(done, Done):
        return TurnResult(None, "cancelled")
    ending: Ending = done.outcome  # type: ignore[assignment]
    if ending not in ("error", "cancelled") and done.stats.iterations >= max_iterations:
        ending = "wrapped"  # the budget ran out (below 3 the core cannot wrap up)
    return TurnResult(done, ending)

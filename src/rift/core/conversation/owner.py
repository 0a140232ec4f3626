"""The conversation owner: one conversation's lifecycle, the same on every face.

`rift --serve`, `rift -p`, the TUI and ACP each translate their input into
these calls and render the events that come back through the `emit` they gave
`start_agent`. None of them starts a turn task, checks busy, expands skills or
mentions, or closes reviews itself; that is what keeps rift's promises the
same everywhere:

- One piece of work at a time. A turn, a model switch, a compaction or an
  option change marks the conversation busy *synchronously*, before any await,
  so two commands in one write can never both start; anything else that needs
  the conversation is refused with `warning` (code "busy"), not queued.
- Every undecided review is closed: on `done` (the agent), on `cancel` and on
  `close`, each gets `edit_review_closed` before the turn unwinds.
- Nothing is lost: the session is saved after every turn and at close; a
  conversation without a user message is never saved.

Work cancelled before its task first ran (`prompt` then `cancel` in one write)
still ends the way a cancelled turn does: `warning`, then `done`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rift.core.context.budget import prune_old_outputs, summarize
from rift.core.context.mentions import expand
from rift.core.permissions.gate import MODES
from rift.core.sessions.checkpoints import format_undo_message
from rift.core.sessions.replay import Prompt, replay
from rift.core.sessions.store import SessionStore, history_for, turn_starts
from rift.errors import RiftError, ToolError
from rift.events import (
    ContextGauge,
    Done,
    Event,
    History,
    HistoryMessage,
    Info,
    Models,
    SessionChanged,
    Sessions,
    TaskFinished,
    Warning,
)
from rift.extend.skills import Skill, split_invocation
from rift.record import record, replace

if TYPE_CHECKING:
    from rift.config import Config
    from rift.core.conversation.runtime import Agent
    from rift.models.attachments import Attachments
    from rift.swarm.race import RaceOptions

BUSY_TEXT = "turn in progress — cancel it or wait for done"


@record
class Prepared:
    """A prompt ready for the model: `text` as sent, `words` as the person typed them."""

    text: str
    words: str
    images: tuple[str, ...] = ()


class Conversation:
    """Owns one conversation: its turns, its switches, its end."""

    def __init__(self, agent: Agent) -> None:
        self._agent = agent
        self._work: asyncio.Task[Any] | None = None
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

    # ------------------------------------------------------------------ state

    @property
    def busy(self) -> bool:
        """A turn, model switch, compaction or option change is running."""
        return self._agent.busy

    @property
    def model(self) -> str:
        return self._agent.model

    @property
    def num_ctx(self) -> int:
        return self._agent.num_ctx

    @property
    def session_path(self) -> Path:
        return self._agent.session_path

    @property
    def approve(self) -> bool:
        return self._agent.approval.enabled

    @property
    def skills(self) -> dict[str, Skill]:
        return self._agent.skills

    @property
    def config(self) -> Config:
        return self._agent.config

    @property
    def edit_review(self) -> bool:
        """Writes come as `edit_review` (serve after hello, the TUI) rather than asks."""
        return self._agent.broker.edit_review

    @edit_review.setter
    def edit_review(self, on: bool) -> None:
        self._agent.broker.edit_review = on

    def history(self) -> list[HistoryMessage]:
        return history_for(self._agent.messages)

    def replay(self) -> list[Prompt | Event]:
        """The stored conversation as its turns' events (sessions/replay.py), to show it whole."""
        return replay(self._agent.messages)

    @property
    def sees(self) -> bool:
        """The model reports vision: images in a prompt can reach it (as `run_turn` decides)."""
        binding = self._agent.binding
        return binding.route.traits.vision and binding.info.vision

    @property
    def mode(self) -> str:
        """The approval mode (permissions/gate.py MODES); `approve` is its serve-protocol flag."""
        return self._agent.approval.mode

    def set_mode(self, mode: str) -> bool:
        """Switch the approval mode; False for a name that is not one of MODES."""
        if mode not in MODES:
            return False
        self._agent.approval.mode = mode
        return True

    def deny_for_session(self, tool: str) -> None:
        """The person chose "always deny": `tool` is refused for the rest of the session."""
        self._agent.gate.deny_for_session(tool)

    def context_gauge(self) -> ContextGauge:
        return self._agent.context_gauge()

    def list_sessions(self) -> Sessions:
        return self._agent.list_sessions()

    async def list_models(self) -> Models:
        return await self._agent.list_models()

    def delegate(self, **services: object) -> None:
        """Hand the tools a front end's services (ACP: the editor's files and terminals)."""
        self._agent.ctx.extras.update(services)

    # ------------------------------------------------------------------ turns

    def submit(self, text: str, attachments: Attachments | None = None) -> bool:
        """Start a turn on `text`; False (and a warning) when it cannot start now.

        Skills (`/skill:name task`) and `@path` mentions are expanded here, once.
        `attachments` (models/attachments.py): its text files follow the prompt, its
        images ride on the prompt's message (vision models only).
        Empty text starts nothing and says nothing.
        """
        if not text.strip():
            return False
        if self._refused_busy():
            return False
        prepared = self._prepare(text)
        if prepared is None:
            return False
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
        """Cancel the running work; every pending review is closed first. True when
        something was running."""
        self._agent.broker.close_reviews()
        self._held = True  # Esc also means "not now" to queued task notifications
        work = self._work
        if work is None or work.done() or not self.busy:
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
        self._agent.save()
        _discard_if_empty(self._agent.session_path)
        await self._agent.aclose()

    # --------------------------------------------------------------- commands

    def set_model(self, name: str) -> bool:
        """Start a live model switch; False (and a warning) when busy or unnamed."""
        name = name.strip()
        if not name:
            self._agent.emit(Warning("set_model needs a 'model' field"))
            return False
        if self._refused_busy("turn in progress — cancel it or wait before switching models"):
            return False
        self._agent.busy = True
        self._start(self._switch(name), "model switch")
        return True

    def set_approval(self, on: bool) -> None:
        self._agent.set_approval(on)

    def set_thinking(self, arg: str) -> str:
        """`/think on|off|auto|<level>` for the next requests; returns the line to show.

        Raises:
            ValueError: an unknown word, or thinking asked of a model that cannot.
        """
        return self._agent.set_thinking(arg)

    def answer(self, ask_id: int, text: str) -> bool:
        return self._agent.broker.answer(ask_id, text)

    def decide(self, review_id: int, apply: bool, content: str | None) -> bool:
        return self._agent.broker.decide(review_id, apply, content)

    def offer_trust(self) -> None:
        self._agent.offer_trust()

    def permissions(self) -> dict[str, tuple[str, ...]]:
        """The rules in force (`/permissions`): the config's lists with the rules granted
        in this session, and under `session` the tools allowed for the rest of it."""
        gate = self._agent.gate
        return {**gate.rules.listing(), "session": tuple(sorted(gate.session_kinds))}

    def allow_for_session(self, *tools: str) -> None:
        """Let these tools run unasked for the rest of the session (the TUI's review
        offers "allow edits for this session"; bash keeps asking unless named)."""
        self._agent.gate.allow_for_session(*tools)

    def clear_plan(self) -> None:
        """Forget the agent's plan checklist (the TUI's `/plan clear`)."""
        self._agent.ctx.plan.items.clear()

    def undo(self) -> None:
        """Revert the last turn's file changes (info or warning)."""
        if self._refused_busy("turn in progress — cancel it or wait before undoing"):
            return
        self._agent.undo()

    def rewind(self, n: int = 1) -> bool:
        """Drop the last `n` turns from the conversation and undo their file changes."""
        agent = self._agent
        if self._refused_busy():
            return False
        starts = turn_starts(agent.messages)
        available = min(len(starts), agent.journal.turn)
        if n < 1 or n > available:
            agent.emit(
                Warning(
                    f"only {available} turn(s) can be rewound (turns run since rift started)"
                    if n >= 1
                    else "rewind needs n ≥ 1"
                )
            )
            return False
        try:
            paths = agent.journal.undo_to_turn(agent.journal.turn - n)
        except OSError as exc:
            agent.emit(Warning(f"rewind failed: {exc}"))
            return False
        del agent.messages[starts[-n] :]
        agent.save()
        restored = format_undo_message(paths, agent.config.cwd) if paths else "no files to restore"
        agent.emit(Info(f"rewound {n} turn(s) — {restored}"))
        agent.emit(History(messages=history_for(agent.messages)))
        agent.emit(agent.context_gauge())
        return True

    def compact(self) -> bool:
        """Start a compaction now (prune old outputs, summarize); busy while it runs."""
        if self._refused_busy():
            return False
        self._agent.busy = True
        self._start(self._compact(), "compaction")
        return True

    def remember(self, fact: str) -> bool:
        """Save `fact` to the project memory as the `remember` tool would (`/remember`):
        gated as an edit of `.rift/memory.md`, so it is asked or reviewed like one; busy
        while it runs. The outcome arrives as `info` or `warning`."""
        if self._refused_busy():
            return False
        self._agent.busy = True
        self._start(self._remember(fact), "remember")
        return True

    def swarm(
        self,
        task: str,
        *,
        models: str = "",
        attempts: int = 1,
        explore: bool = False,
        judge: str = "",
        test_cmd: str | None = None,
    ) -> bool:
        """Start a swarm race (src/rift/swarm/) as this conversation's work: busy while it
        runs, cancelled by `cancel`, its verdict a `swarm_result` event. `models` and
        `judge` are comma-separated; no models named: the conversation's own."""
        from rift.swarm.work import options_for  # the swarm package: loaded on first use

        if not task.strip():
            self._agent.emit(Warning("swarm needs a task"))
            return False
        options = options_for(
            task,
            models=models,
            attempts=attempts,
            explore=explore,
            judge=judge,
            test_cmd=test_cmd,
            default_model=self.model,
        )
        return self._begin_swarm(options)

    def swarm_line(self, text: str) -> bool:
        """`/swarm <task> [--models a,b] [--attempts N] [--explore] [--judge …]` as typed."""
        from rift.swarm.gitrepo import SwarmError
        from rift.swarm.work import parse_swarm

        try:
            options = parse_swarm(text, self.model)
        except SwarmError as exc:
            self._agent.emit(Warning(str(exc)))
            return False
        return self._begin_swarm(options)

    def worktrees(self) -> str:
        """What `/worktrees` shows: the last race's checkouts and patches."""
        from rift.swarm.work import describe_worktrees

        return describe_worktrees(self._agent.config.cwd)

    def _begin_swarm(self, options: RaceOptions) -> bool:
        if self._refused_busy():
            return False
        self._agent.busy = True
        self._start(self._swarm(options), "swarm")
        return True

    def merge(self, name: str, cleanup: bool = False) -> bool:
        """Apply swarm candidate `name`'s patch, recorded in this conversation's undo
        journal (so `undo` takes it back); `cleanup` then removes the race's worktrees."""
        if self._refused_busy():
            return False
        from rift.swarm.work import merge_into  # the swarm package: loaded on first use

        agent = self._agent
        return merge_into(agent.config.cwd, name, cleanup, agent.journal, agent.emit)

    def new_conversation(self) -> bool:
        """What `/clear` means: the old session stays saved and resumable; the
        conversation starts empty in a new session file."""
        agent = self._agent
        if self._refused_busy():
            return False
        agent.save()
        old = agent.session_path
        _discard_if_empty(old)
        del agent.messages[1:]  # the system prompt stays
        agent.journal.clear()
        agent.interrupted = False
        agent.session_path = SessionStore(agent.config.paths.sessions_dir).reserve()
        agent.emit(SessionChanged(session=str(agent.session_path), previous=str(old)))
        agent.emit(agent.context_gauge())
        return True

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
        config = replace(self._agent.config, **changes)
        if num_ctx is None and host is None:
            self._agent.config = config
            self._agent.emit(Info(f"temperature set to {temperature}"))
            return True
        self._agent.busy = True
        self._start(self._rebind(config), "option change")
        return True

    # -------------------------------------------------------------- internals

    def _refused_busy(self, text: str = BUSY_TEXT) -> bool:
        if not self.busy:
            return False
        self._agent.emit(Warning(text, code="busy"))
        return True

    def _prepare(self, text: str) -> Prepared | None:
        invocation = split_invocation(text)
        if invocation is not None:
            skill = self._agent.skills.get(invocation[0])
            if skill is None:
                self._agent.emit(Warning(f"unknown skill '{invocation[0]}'", code="unknown_skill"))
                return None
            text = skill.expand(invocation[1])
        cwd, check_read = self._agent.config.cwd, self._agent.gate.check_read
        expanded = expand(text, cwd, check_read, vision=self.sees)
        for problem in expanded.problems:
            self._agent.emit(Warning(problem))
        if expanded.attached:
            self._agent.emit(Info("attached: " + ", ".join(expanded.attached)))
        return Prepared(text=expanded.text, words=text, images=expanded.images)

    def _start(self, body: Coroutine[Any, Any, object], kind: str = "turn") -> None:
        self._started = False
        self._cancel_early = False

        async def run() -> object:
            self._started = True
            if self._cancel_early:
                body.close()
                return self._cancelled_before_start(kind)
            return await body

        task = asyncio.create_task(run())
        self._work = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _cancelled_before_start(self, kind: str) -> Done | None:
        """The work was cancelled before it ran: end it as a cancel would."""
        if kind == "turn":
            return self._agent.cancelled_before_start()
        self._agent.busy = False
        self._agent.emit(Warning(f"{kind} cancelled"))
        return None

    async def _turn(self, prepared: Prepared) -> Done:
        try:
            return await self._agent.run_turn(prepared.text, prepared.words, prepared.images)
        finally:  # notifications that arrived during the turn may start the next one
            asyncio.get_running_loop().call_soon(self._continue_on_notes)

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
        self._agent.busy = True
        self._start(self._turn(prepared))

    def _task_finished(self, event: TaskFinished) -> None:
        status = "finished" if event.ok else "FAILED"
        preview = event.preview.strip() or "(no output)"
        self._notes.append(
            f"[task notification] background task #{event.id} {status}: {event.label}\n"
            f"{preview}\n(the task tool with id {event.id} shows all of its output)"
        )
        self._continue_on_notes()

    def _continue_on_notes(self) -> None:
        """The opt-in auto-turn: only when idle, open, not held by a cancel, with notes."""
        if not self._notes or not self.auto_continue or self._held:
            return
        if self.busy or self._closed:
            return
        self._agent.emit(Info("background task finished — continuing"))
        self._begin_turn(Prepared(text="", words="[task notification]"))

    async def _switch(self, name: str) -> bool:
        try:
            return await self._agent.set_model(name)
        except asyncio.CancelledError:
            self._agent.emit(Warning("model switch cancelled"))
            raise
        finally:
            self._agent.busy = False

    async def _rebind(self, config: Config) -> bool:
        agent = self._agent
        old = agent.config
        agent.config = config
        try:
            if await agent.set_model(agent.model):
                return True
            agent.config = old  # the switch failed: keep what worked
            return False
        finally:
            agent.busy = False

    async def _swarm(self, options: RaceOptions) -> None:
        from rift.swarm.work import run_race

        try:
            await run_race(self._agent.config, options, self._agent.emit)
        finally:
            self._agent.busy = False

    async def _compact(self) -> None:
        agent = self._agent
        try:
            before = agent.context_gauge().used
            messages, pruned = prune_old_outputs(agent.messages)
            summarized = await summarize(
                agent.binding.provider,
                model=agent.binding.route.wire_model,
                num_ctx=agent.num_ctx,
                messages=messages,
            )
            if summarized == agent.messages:
                agent.emit(Info("nothing to compact yet (only the current exchange)"))
                return
            agent.messages[:] = summarized
            agent.save()
            after = agent.context_gauge()
            agent.emit(
                Info(f"compacted: ~{before} → ~{after.used} tokens ({pruned} old outputs pruned)")
            )
            agent.emit(after)
        except RiftError as exc:
            agent.emit(Warning(f"compaction failed: {exc}"))
        finally:
            agent.busy = False

    async def _remember(self, fact: str) -> None:
        from rift.tools.remember import TOOL  # the tool's own rules: caps, duplicates, gate

        agent = self._agent
        refusals = agent.gate.refusals
        try:
            output = await TOOL.run({"fact": fact}, agent.ctx)
        except ToolError as exc:
            agent.emit(Warning(f"not remembered: {exc}"))
            return
        finally:
            agent.busy = False
        if output.ok:
            agent.emit(Info(output.text))
        elif agent.gate.refusals > refusals:
            agent.emit(Warning("not remembered: the change to the memory file was rejected"))
        else:
            agent.emit(Warning(f"not remembered: {output.text}"))


def _discard_if_empty(path: Path) -> None:
    """Remove a reserved session file that never received a conversation."""
    try:
        if path.stat().st_size == 0:
            path.unlink()
    except OSError:
        pass

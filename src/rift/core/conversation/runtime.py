"""The agent: one conversation, its model, its tools, and the commands front ends send.

Front ends never reach into the core's state; they call these methods (the
serve protocol's commands map one to one) and render the events that come
back through `emit`. A turn is one asyncio task; everything after it (close
orphaned reviews, autosave, `done`, idle compaction, `context`) happens here
so every front end gets the same ordering. The save comes before `done`, so a
turn a client saw end is on disk even if rift is killed the next instant.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rift.config import Config, persist_allow_rule
from rift.core.context.budget import TokenMeter, enforce_budget
from rift.core.context.instructions import load_project_instructions
from rift.core.context.prompt import build_system_prompt, user_base_prompt
from rift.core.conversation.lsp import LspService
from rift.core.conversation.tasks import TaskRegistry
from rift.core.loop.subagents import SubagentRunner
from rift.core.loop.turn import Turn, TurnSetup
from rift.core.permissions.gate import Approval, PermissionGate
from rift.core.permissions.interaction import InteractionBroker
from rift.core.permissions.rules import Rules
from rift.core.sessions.checkpoints import NothingToUndo, UndoJournal, format_undo_message
from rift.core.sessions.store import INTERRUPT_NOTE, SessionStore, save_session, user_turn_count
from rift.core.sessions.trace import append_trace, trace_record
from rift.errors import RiftError
from rift.events import (
    ContextGauge,
    Done,
    Event,
    Info,
    ModelChanged,
    Models,
    Sessions,
    TurnStats,
    Warning,
)
from rift.extend.skills import Skill
from rift.models.attachments import images_for
from rift.models.base import Message, Provider
from rift.models.registry import Preflight, Route, connect, list_all_models, with_thinking
from rift.models.thinking import describe as describe_thinking
from rift.record import field, record
from rift.text import scrub
from rift.tools import builtin_tools
from rift.tools.agent import TOOL as AGENT_TOOL
from rift.tools.base import Tool, ToolContext
from rift.tools.skill import TOOL as SKILL_TOOL
from rift.tools.task import TOOL as TASK_TOOL

if TYPE_CHECKING:
    from rift.extend.loader import Extensions

log = logging.getLogger("rift.agent")
SMALL_TOOLSET = ("read", "write", "edit", "bash", "ls", "grep")


@record(frozen=False, slots=False)
class ModelBinding:
    """The model in use: where it lives, what it can do, and the budget rift adopted."""

    route: Route
    provider: Provider
    info: Preflight

    @property
    def addressable(self) -> str:
        return self.route.addressable


async def bind_model(name: str, config: Config) -> ModelBinding:
    """Resolve, connect and preflight a model; raises ModelError when it is not usable."""
    return ModelBinding(*await connect(name, config))


@record(frozen=False, slots=False)
class Agent:
    """One conversation with one model, driven by a front end."""

    config: Config
    binding: ModelBinding
    emit: Callable[[Event], None]
    session_path: Path
    messages: list[Message] = field(default_factory=list)
    attached: bool = True
    approval: Approval = field(default_factory=Approval)
    broker: InteractionBroker = field(init=False)
    journal: UndoJournal = field(default_factory=UndoJournal)
    meter: TokenMeter = field(default_factory=TokenMeter)
    tools: dict[str, Tool] = field(default_factory=dict)
    ctx: ToolContext = field(init=False)
    skills: dict[str, Skill] = field(default_factory=dict)
    interrupted: bool = False
    busy: bool = False
    """A turn or a model switch is running: prompt, undo and set_model are refused."""
    last_stats: TurnStats = field(default_factory=TurnStats)
    tasks: TaskRegistry = field(init=False)
    subagents: SubagentRunner = field(init=False)
    extensions: Extensions | None = None
    """Plugins, personas, project hooks and MCP servers (extend/loader.py), set at startup."""
    _after_turn: asyncio.Task[None] | None = None
    _session_store: SessionStore | None = None

    def __post_init__(self) -> None:
        self.broker = InteractionBroker(self.emit, attached=self.attached)
        rules = Rules.from_config(
            self.config.permissions, cwd=self.config.cwd, home=self.config.paths.home
        )
        gate = PermissionGate(
            rules,
            self.approval,
            self.broker,
            self.config.cwd,
            persist_rule=self._persist_allow_rule,
        )
        self.ctx = ToolContext(
            cwd=self.config.cwd,
            gate=gate,
            journal=self.journal,
            bash_wrapper=self.config.permissions.bash_wrapper,
            post_edit_hooks=self.config.post_edit_hooks,
        )
        self.tasks = TaskRegistry(self.emit)
        self.subagents = SubagentRunner(
            config=self.config,
            parent_setup=self.turn_setup,
            bind=lambda name: bind_model(name, self.config),
            emit=self.emit,
            system_prompt=lambda: self.messages[0]["content"],
        )
        self.ctx.extras.update(skills=self.skills, tasks=self.tasks, subagents=self.subagents)
        lsp = LspService(self.config.lsp, self.config.cwd)  # servers start on first edit
        self.ctx.extras.update(broker=self.broker, config=self.config, lsp=lsp)
        if not self.tools:
            self.tools = builtin_tools(search=bool(self.config.search_url))
            self.tools["task"] = TASK_TOOL
            if self.skills:
                self.tools["skill"] = SKILL_TOOL
            self.tools["agent"] = AGENT_TOOL
            if self.binding.route.traits.small_model:
                with_tools(self, SMALL_TOOLSET)  # a 1.5B model chooses well among six
                self.ctx.extras["small_model"] = True  # write steers to edit (tools/write.py)
        if not self.messages or self.messages[0]["role"] != "system":
            self.messages.insert(0, {"role": "system", "content": ""})
        self.refresh_system_prompt()

    # ------------------------------------------------------------------ state

    @property
    def num_ctx(self) -> int:
        return self.binding.info.num_ctx

    @property
    def model(self) -> str:
        return self.binding.addressable

    @property
    def gate(self) -> PermissionGate:
        assert isinstance(self.ctx.gate, PermissionGate)
        return self.ctx.gate

    def refresh_system_prompt(self) -> None:
        prompt = build_system_prompt(
            self.config.cwd,
            base=user_base_prompt(self.config.paths.config_dir),
            instructions=load_project_instructions(
                self.config.cwd, readable=lambda path: self.gate.check_read(path) is None
            ),
            skills=[(s.name, s.description) for s in self.skills.values()],
            roles=sorted(self.config.models),
            personas=[(p.name, p.description) for p in self.subagents.personas.values()],
            small_model=self.binding.route.traits.small_model,
        )
        self.messages[0] = {"role": "system", "content": prompt}

    def register_tools(self, tools: Mapping[str, Tool]) -> None:
        """Plugin and MCP tools arrive live: the next model request offers them."""
        self.tools.update(tools)
        self.refresh_system_prompt()

    def add_post_edit_hooks(self, hooks: tuple[str, ...]) -> None:
        """Activate trusted hooks (plugins, the project) after the user's own."""
        fresh = tuple(h for h in dict.fromkeys(hooks) if h not in self.ctx.post_edit_hooks)
        self.ctx.post_edit_hooks = (*self.ctx.post_edit_hooks, *fresh)

    def offer_trust(self) -> None:
        """Ask about the project's untrusted plugins, hooks and MCP servers (once; no wait)."""
        if self.extensions is not None:
            self.extensions.offer_trust()

    def context_gauge(self) -> ContextGauge:
        schemas = [t.schema(self.config.tool_schema == "lean") for t in self.tools.values()]
        return ContextGauge(used=self.meter.estimate(self.messages, schemas), limit=self.num_ctx)

    def turn_setup(self) -> TurnSetup:
        b = self.binding
        return TurnSetup(
            provider=b.provider,
            model=b.route.wire_model,
            num_ctx=b.info.num_ctx,
            temperature=self.config.temperature,
            think=b.info.think,
            tools=self.tools,
            ctx=self.ctx,
            meter=self.meter,
            max_iterations=self.config.max_iterations,
            lean_schema=self.config.tool_schema == "lean",
            detect_truncation=b.route.traits.reports_truncation,
            headless=not self.attached,
            preread=b.route.traits.small_model,
        )

    # ---------------------------------------------------------------- a turn

    async def run_turn(
        self, text: str, words: str | None = None, images: Sequence[str] = ()
    ) -> Done:
        """Run one turn and everything that belongs to its end, in the protocol's order.

        Call it through `Conversation.submit`, which marks the agent busy before the
        task starts; `words` is what the person typed, without attachments; `images`
        (data URLs) go only to a model that reports vision.
        """
        text = scrub(text)  # from any front end: an editor's `\ud800`, a non-UTF-8 argv
        vision = self.binding.route.traits.vision and self.binding.info.vision
        images, refusal = images_for(images, self.model, vision)
        if refusal:
            self.emit(Warning(refusal))
        self.busy = True
        try:
            if self._after_turn is not None:
                try:  # the previous turn's save/compaction finishes first
                    await asyncio.shield(self._after_turn)
                except asyncio.CancelledError:
                    _uncancel()
                    return self.cancelled_before_start()
            if self.interrupted:
                text, self.interrupted = INTERRUPT_NOTE + text, False
            self.journal.begin_turn()
            turn = Turn(self.turn_setup(), self.messages, self.emit)
            try:
                stats = await turn.run(text, words, images)
                outcome, reason = turn.outcome, turn.reason
            except RiftError as exc:
                self.emit(Warning(f"error: {exc}", code="error"))
                stats, outcome, reason = TurnStats(), "error", str(exc)
            except Exception as exc:
                log.exception("turn failed")  # a bug: keep serving, but leave the traceback
                self.emit(Warning(f"error: internal error: {exc!r}", code="error"))
                stats, outcome, reason = TurnStats(), "error", f"internal error: {exc!r}"
            self.interrupted = self.interrupted or turn.cancelled
            self.broker.close_reviews()
            self.last_stats = stats
            self.save()
            done = Done(stats=stats, outcome=outcome, reason=reason)
            self.emit(done)
            self._trace(turn, text, stats, outcome == "error")
        finally:
            self.busy = False  # done is out: the next prompt may come (it waits for the save)
        self._after_turn = asyncio.create_task(self._finish_turn())
        await asyncio.shield(self._after_turn)
        return done

    def cancelled_before_start(self) -> Done:
        """A turn cancelled before it reached the model ends as any cancelled turn does:
        `warning`, then `done`; nothing was added to the conversation."""
        self.broker.close_reviews()
        self.busy = False
        self.emit(Warning("turn cancelled"))
        done = Done(outcome="cancelled", reason="turn cancelled")
        self.emit(done)
        return done

    def _trace(self, turn: Turn, prompt: str, stats: TurnStats, failed: bool) -> None:
        if self.config.trace_file is None:
            return
        record = trace_record(
            model=self.model,
            provider=self.binding.route.base_url,
            num_ctx=self.num_ctx,
            prompt=prompt,
            outcome="error" if failed else turn.outcome,
            stats=stats,
            tools=turn.tool_log,
            counters=turn.counters,
        )
        try:
            append_trace(self.config.trace_file, record)
        except OSError as exc:
            self.emit(Warning(f"trace write failed: {exc}"))

    async def _finish_turn(self) -> None:
        """Idle compaction (saved when it ran), then the fresh context gauge (reference 10.4)."""
        schemas = [t.schema(self.config.tool_schema == "lean") for t in self.tools.values()]
        try:
            self.messages[:], compaction = await enforce_budget(
                self.messages,
                meter=self.meter,
                tools=schemas,
                num_ctx=self.num_ctx,
                provider=self.binding.provider,
                model=self.binding.route.wire_model,
                emit=self._notice,
            )
        except RiftError as exc:
            self.emit(Warning(f"compaction failed: {exc}"))
        else:
            if compaction.prunes or compaction.summaries:
                self.save()
        self.emit(self.context_gauge())

    def save(self) -> None:
        """Write the session atomically; a conversation with no user message is not saved,
        so opening rift and quitting leaves nothing for `--continue` to pick."""
        if user_turn_count(self.messages) == 0:
            return
        try:
            save_session(
                self.session_path,
                model=self.model,
                cwd=str(self.config.cwd),
                messages=self.messages,
            )
        except OSError as exc:
            self.emit(Warning(f"session save failed: {exc}"))

    # -------------------------------------------------------------- commands

    def undo(self) -> None:
        try:
            paths = self.journal.undo_last_turn()
        except NothingToUndo as exc:
            self.emit(Warning(str(exc)))
        except OSError as exc:
            self.emit(Warning(f"undo failed: {exc}"))
        else:
            self.emit(Info(format_undo_message(paths, self.config.cwd)))

    async def set_model(self, name: str) -> bool:
        """Preflight and swap the model on the same conversation.

        Busy until `model_changed` (or the failure warning) is out, so a prompt sent
        right behind the switch is refused instead of running under it.
        """
        self.busy = True
        try:
            try:
                binding = await bind_model(name, self.config)
            except RiftError as exc:
                self.emit(Warning(f"model switch failed: {exc}"))
                return False
            old = self.binding
            self.binding = binding
            self.refresh_system_prompt()
            self.emit(
                ModelChanged(
                    model=binding.addressable,
                    num_ctx=binding.info.num_ctx,
                    note=binding.info.note.strip(),
                )
            )
            self.emit(self.context_gauge())
        finally:
            self.busy = False
        await old.provider.aclose()
        return True

    def set_thinking(self, arg: str) -> str:
        """`/think on|off|auto|<level>` (empty: report only); ValueError for a bad word."""
        if arg.strip():
            self.binding.info = with_thinking(self.binding.route, self.binding.info, arg)
        return describe_thinking(self.binding.info.think)

    def set_approval(self, approve: bool) -> None:
        self.approval.enabled = approve

    def list_sessions(self) -> Sessions:
        if self._session_store is None:  # kept: it caches parsed files by mtime and size
            self._session_store = SessionStore(self.config.paths.sessions_dir)
        return Sessions(items=self._session_store.list_items())

    async def list_models(self) -> Models:
        names = await list_all_models(self.config, self.model)
        return Models(models=names, current=self.model)

    async def aclose(self) -> None:
        """rift is exiting: background tasks die with it, connections close."""
        await self.tasks.shutdown()
        await self.ctx.extras["lsp"].aclose()
        if self.extensions is not None:
            await self.extensions.aclose()
        await self.binding.provider.aclose()

    # ------------------------------------------------------------- internals

    def _notice(self, kind: str, text: str) -> None:
        self.emit(Info(text=text) if kind == "info" else Warning(text=text))

    def _persist_allow_rule(self, rule: str, everywhere: bool) -> None:
        persist_allow_rule(self.config, rule, everywhere=everywhere)


def _uncancel() -> None:
    """The cancel was handled here; the task goes on to report it."""
    task = asyncio.current_task()
    if task is not None:
        task.uncancel()


def with_tools(agent: Agent, names: tuple[str, ...]) -> None:
    """Narrow the tool set (small models, personas); unknown names only narrow further."""
    agent.tools = {n: t for n, t in agent.tools.items() if n in names}

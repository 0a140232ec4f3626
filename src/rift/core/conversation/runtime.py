"""The runtime behind the owner: the model binding, the tools, approval, the journal.

Private to `Conversation` (owner.py), which alone decides when work runs, saves, and
changes `messages`' structure. This runs what it is told: a turn's model loop
(`run_turn`, which never emits `done`), a model swap (`set_model`, acked last), the
budget check the owner applies after a turn (`fit_budget`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from msgspec import Struct, field

from rift.config.load import Config, persist_allow_rule
from rift.core.context.budget import CompactionCounts, TokenMeter, enforce_budget
from rift.core.context.instructions import load_project_instructions
from rift.core.context.prompt import build_system_prompt, user_base_prompt
from rift.core.conversation.refusal import Refusal
from rift.core.conversation.tasks import TaskRegistry
from rift.core.loop.profile import profile_for
from rift.core.loop.setup import TurnSetup
from rift.core.loop.subagents import SubagentRunner
from rift.core.permissions.gate import Approval, PermissionGate
from rift.core.permissions.interaction import InteractionBroker
from rift.core.permissions.rules import Rules
from rift.core.sessions.store import SessionStore
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
from rift.fs.checkpoints import NothingToUndo, UndoJournal, format_undo_message
from rift.lsp.client import LspService
from rift.models.base import Message, Provider
from rift.models.registry import Preflight, Route, connect, list_all_models, with_thinking
from rift.models.thinking import describe as describe_thinking
from rift.text.hygiene import scrub
from rift.tools import builtin_tools, tool
from rift.tools.base import Tool, ToolContext
from rift.tools.services import EditRules

if TYPE_CHECKING:
    from rift.core.loop.turn import Turn
    from rift.extend.loader import Extensions

log = logging.getLogger("rift.agent")
SMALL_TOOLSET = ("read", "write", "edit", "bash", "ls", "grep")


class ModelBinding(Struct, dict=True):
    """The model in use: where it lives, what it can do, and the budget rift adopted."""

    route: Route
    provider: Provider
    info: Preflight


async def bind_model(name: str, config: Config) -> ModelBinding:
    """Resolve, connect and preflight a model; raises ModelError when it is not usable.
    With `hosts` set, the default host's models go through the server pool (pool/)."""
    if config.hosts:
        from rift.pool.provider import pooled_connect

        bound = await pooled_connect(name, config)
        if bound is not None:
            return ModelBinding(*bound)
    return ModelBinding(*await connect(name, config))


def _listen(provider: Provider, emit: Callable[[Event], None]) -> None:
    """A pooled provider says its failover line through this conversation."""
    listen = getattr(provider, "listen", None)
    if listen is not None:
        listen(emit)


class TurnEnd(Struct, frozen=True):
    """One turn's model loop has ended: its `done` (not yet emitted) and what traces it."""

    done: Done
    cancelled: bool
    turn: Turn
    prompt: str


class Agent(Struct, dict=True):
    """One conversation's model, tools and rules; driven only by its owner."""

    config: Config
    binding: ModelBinding
    emit: Callable[[Event], None]
    messages: list[Message] = field(default_factory=list)
    attached: bool = True
    approval: Approval = field(default_factory=Approval)
    journal: UndoJournal = field(default_factory=UndoJournal)
    meter: TokenMeter = field(default_factory=TokenMeter)
    tools: dict[str, Tool] = field(default_factory=dict)
    skills: dict[str, Skill] = field(default_factory=dict)
    extensions: Extensions | None = None
    """Plugins, personas, project hooks and MCP servers (extend/loader.py), set at startup."""
    slot: int = 0
    """The server slot (llama.cpp's `id_slot`) this conversation pins, so sub-agents (slots
    1…) never evict its cached prompt; a swarm candidate gets its own."""
    _session_store: SessionStore | None = None

    def __post_init__(self) -> None:
        # broker, ctx, tasks, subagents and lsp are set here, not fields: built from the rest
        _listen(self.binding.provider, self.emit)
        self.broker: InteractionBroker = InteractionBroker(self.emit, attached=self.attached)
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
        self.ctx: ToolContext = ToolContext(
            cwd=self.config.cwd,
            gate=gate,
            journal=self.journal,
            bash_wrapper=self.config.permissions.bash_wrapper,
            post_edit_hooks=self.config.post_edit_hooks,
        )
        self.tasks: TaskRegistry = TaskRegistry(self.emit)
        self.subagents: SubagentRunner = SubagentRunner(
            config=self.config,
            parent_setup=self.turn_setup,
            bind=lambda name: bind_model(name, self.config),
            emit=self.emit,
            system_prompt=lambda: self.messages[0]["content"],
            tasks=self.tasks,
        )
        services = self.ctx.services
        services.skills, services.tasks = self.skills, self.tasks
        services.subagents, services.asker = self.subagents, self.broker
        services.settings = self.config
        self.lsp: LspService = LspService(self.config.lsp, self.config.cwd)  # starts on an edit
        services.diagnostics = self.lsp
        if not self.tools:
            self._offer_tools()
        if not self.messages or self.messages[0]["role"] != "system":
            self.messages.insert(0, {"role": "system", "content": ""})
        self.refresh_system_prompt()

    def _offer_tools(self) -> None:
        """The session's tools: the built-ins, then `task`, `skill` (with skills) and
        `agent`; a small model gets six, since a 1.5B model chooses well among six."""
        small = self.binding.route.small
        search = bool(self.config.search_url)
        self.tools = builtin_tools(search=search, only=SMALL_TOOLSET if small else None)
        profile = profile_for(small)
        self.ctx.services.edit_rules = EditRules(
            strict=profile.strict_edits,
            rewrite_lines=max(profile.whole_file_lines, EditRules().rewrite_lines),
        )
        if small:
            return
        self.tools["task"] = tool("task")
        if self.skills:
            self.tools["skill"] = tool("skill")
        self.tools["agent"] = tool("agent")

    @property
    def num_ctx(self) -> int:
        return self.binding.info.num_ctx

    @property
    def model(self) -> str:
        return self.binding.route.addressable

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
            small_model=self.binding.route.small,
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
        slots = b.info.info.slots
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
            profile=profile_for(b.route.small),
            slots=slots,
            slot=self.slot if slots and self.slot < slots else None,
        )

    async def run_turn(
        self, text: str, words: str | None = None, images: Sequence[str] = ()
    ) -> TurnEnd:
        """Run one turn's model loop; the owner saves, emits `done` and traces after it. `words`
        is what the person typed; errors end the turn as outcome "error", never raise."""
        from rift.core.loop.turn import Turn  # the loop loads with the first prompt (setup.py)
        from rift.models.attachments import images_for
        from rift.models.pricing import estimated_cost_usd

        text = scrub(text)  # from any front end: an editor's `\ud800`, a non-UTF-8 argv
        vision = self.binding.route.traits.vision and self.binding.info.vision
        images, refusal = images_for(images, self.model, vision)
        if refusal:
            self.emit(Warning(refusal))
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
        self.broker.close_reviews()
        cost = estimated_cost_usd(
            self.config, self.model, stats.billed_prompt_tokens, stats.output_tokens
        )
        checks = turn.checks
        done = Done(
            stats=stats,
            outcome=outcome,
            reason=reason,
            cost_usd=cost,
            checks=None if checks is None else checks.as_json(),
        )
        return TurnEnd(done=done, cancelled=turn.cancelled, turn=turn, prompt=text)

    def trace(self, end: TurnEnd) -> None:
        """Append the ended turn to the trace file, when one is configured."""
        if self.config.trace_file is None:
            return
        from rift.core.sessions.trace import append_trace, trace_record

        record = trace_record(
            model=self.model,
            provider=self.binding.route.base_url,
            num_ctx=self.num_ctx,
            prompt=end.prompt,
            outcome=end.done.outcome,
            stats=end.done.stats,
            tools=end.turn.tool_log,
            counters=end.turn.counters,
        )
        try:
            append_trace(self.config.trace_file, record)
        except OSError as exc:
            self.emit(Warning(f"trace write failed: {exc}"))

    async def fit_budget(self) -> tuple[list[Message], CompactionCounts]:
        """The messages brought under the budget (prune, then summarize); the owner applies
        them. Raises RiftError when a summary was needed and failed."""
        schemas = [t.schema(self.config.tool_schema == "lean") for t in self.tools.values()]
        return await enforce_budget(
            self.messages,
            meter=self.meter,
            tools=schemas,
            num_ctx=self.num_ctx,
            provider=self.binding.provider,
            model=self.binding.route.wire_model,
            emit=self._notice,
        )

    def undo(self) -> bool:
        """Revert the last turn's file changes; False (and a warning) when it could not."""
        try:
            paths = self.journal.undo_last_turn()
        except NothingToUndo as exc:
            self.emit(Warning(str(exc)))
            return False
        except OSError as exc:
            self.emit(Warning(f"undo failed: {exc}"))
            return False
        self.emit(Info(format_undo_message(paths, self.config.cwd)))
        return True

    async def set_model(self, name: str) -> ModelBinding | Refusal:
        """Preflight and swap the model; the old binding (the owner closes its provider), or a
        refusal and a warning. `model_changed` and `context` are its last act, with no await
        after them: when a client sees the ack, the switch is over."""
        try:
            binding = await bind_model(name, self.config)
        except RiftError as exc:
            said = f"model switch failed: {exc}"
            self.emit(Warning(said))
            return Refusal("failed", said)
        old = self.binding
        self.binding = binding
        _listen(binding.provider, self.emit)
        self.refresh_system_prompt()
        note = binding.info.note.strip()
        self.emit(ModelChanged(model=self.model, num_ctx=self.num_ctx, note=note))
        self.emit(self.context_gauge())
        return old

    async def check_server(self, previous: Route) -> None:
        """After a switch to another server, the doctor's quick checks of it; each problem
        is a `warning` with code "server". A model on the same server costs no request."""
        from rift.models.server_info import root_of

        route = self.binding.route
        if root_of(route.base_url) == root_of(previous.base_url):
            return
        from rift.core.doctor.report import brief_check  # only on a switch of server

        for check in await brief_check(self.config, route, self.binding.info.info):
            fix = f" — {check.fix}" if check.fix else ""
            self.emit(Warning(f"{route.base_url}: {check.detail}{fix}", code="server"))

    def set_thinking(self, arg: str) -> str:
        """`/think on|off|auto|<level>` (empty: report only); ValueError for a bad word."""
        if arg.strip():
            self.binding.info = with_thinking(self.binding.route, self.binding.info, arg)
        return describe_thinking(self.binding.info.think)

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
        await self.lsp.aclose()
        if self.extensions is not None:
            await self.extensions.aclose()
        await self.binding.provider.aclose()

    def _notice(self, kind: str, text: str) -> None:
        self.emit(Info(text=text) if kind == "info" else Warning(text=text))

    def _persist_allow_rule(self, rule: str, everywhere: bool) -> None:
        persist_allow_rule(self.config, rule, everywhere=everywhere)

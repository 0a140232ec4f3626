"""One ACP session: a rift `Agent`, the pump that streams its events, and its turn.

The core emits synchronously; the editor is reached asynchronously. Events are
translated on the spot (`updates.Translator`) and queued, and one pump task
sends them in order. An `ask` becomes a `session/request_permission` in a task
of its own, so the pump never waits on a person. A prompt's response is sent
only after the queue is drained, so every update of a turn reaches the editor
before the turn's `stopReason`.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from acp import PromptResponse, RequestError, update_agent_message_text, update_user_message_text
from acp.interfaces import Client
from acp.schema import AllowedOutcome, ClientCapabilities, StopReason, ToolCallUpdate

from rift.config import Config, McpServerConfig
from rift.core.agent import Agent
from rift.core.events import Event, TurnStats
from rift.core.session import history_for
from rift.core.startup import StartOptions, start_agent
from rift.errors import RiftError
from rift.extend.skills import split_invocation
from rift.frontends.acp.delegate import EditorFs, EditorTerminal
from rift.frontends.acp.mapping import REJECT_ALWAYS, config_options, permission_choices
from rift.frontends.acp.updates import Outgoing, PermissionItem, Translator

log = logging.getLogger("rift.acp")


def request_error(code: int, message: str) -> RequestError:
    """A JSON-RPC error whose message says what went wrong in words."""
    return RequestError(code, message)


@dataclass
class AcpSession:
    """Everything one `sessionId` owns."""

    client: Client
    agent: Agent
    translator: Translator
    models: list[str] = field(default_factory=list)
    _queue: asyncio.Queue[Outgoing] = field(default_factory=asyncio.Queue)
    _pump: asyncio.Task[None] | None = None
    _turn: asyncio.Task[Any] | None = None
    _cancelled: bool = False
    _mcp_waited: bool = False
    _asks: set[asyncio.Task[None]] = field(default_factory=set)
    _rejected: set[str | None] = field(default_factory=set)
    """Tools the person chose "always deny" for: later asks are refused without asking."""

    @property
    def session_id(self) -> str:
        return self.agent.session_path.stem

    # ---------------------------------------------------------------- opening

    @classmethod
    async def open(
        cls,
        client: Client,
        config: Config,
        options: StartOptions,
        capabilities: ClientCapabilities | None,
    ) -> AcpSession:
        """Start the agent (preflight, resume) and wire it to the editor; raises ModelError."""
        relay: list[AcpSession] = []
        started = await start_agent(config, lambda e: relay[0].emit(e) if relay else None, options)
        agent = started.agent
        translator = Translator(
            cwd=config.cwd,
            last_message=lambda: agent.messages[-1] if agent.messages else None,
            approval=lambda: agent.approval.enabled,
        )
        session = cls(client=client, agent=agent, translator=translator)
        relay.append(session)
        for notice in started.notices:
            log.warning("%s", getattr(notice, "text", notice))
        agent.broker.edit_review = False  # writes come as asks → session/request_permission
        session._delegate(capabilities)
        session._pump = asyncio.create_task(session._run_pump())
        try:
            session.models = (await agent.list_models()).models
        except RiftError as exc:
            log.warning("could not list models: %s", exc)
        return session

    def connect_mcp(self, servers: list[McpServerConfig]) -> None:
        """Start the editor's MCP servers with the agent's own (their tools arrive live).

        The person configured them in the editor, so, like the user config's
        servers, they need no project trust.
        """
        extensions = self.agent.extensions
        manager = extensions.mcp if extensions is not None else None
        if servers and manager is None:
            log.warning("MCP servers from the editor ignored: this agent has no MCP layer")
            return
        for server in servers:
            assert manager is not None
            manager.start(server)

    def _delegate(self, capabilities: ClientCapabilities | None) -> None:
        fs = capabilities.fs if capabilities is not None else None
        can_read = bool(fs and fs.read_text_file)
        can_write = bool(fs and fs.write_text_file)
        extras = self.agent.ctx.extras
        if can_read or can_write:
            extras["fs"] = EditorFs(
                self.client,
                self.session_id,
                can_read=can_read,
                can_write=can_write,
                written=self.translator.written,
                buffers=self.translator.buffers,
            )
        if capabilities is not None and capabilities.terminal:
            extras["terminal"] = EditorTerminal(
                self.client, self.session_id, lambda tid: self._send(self.translator.running(tid))
            )

    # ------------------------------------------------------------ the stream

    def emit(self, event: Event) -> None:
        self._send(self.translator.feed(event))

    def _send(self, items: list[Outgoing]) -> None:
        for item in items:
            self._queue.put_nowait(item)

    async def _run_pump(self) -> None:
        while True:
            item = await self._queue.get()
            try:
                if isinstance(item, PermissionItem):
                    task = asyncio.create_task(self._permit(item))
                    self._asks.add(task)
                    task.add_done_callback(self._asks.discard)
                else:
                    await self.client.session_update(session_id=self.session_id, update=item)
            except (ConnectionError, RequestError) as exc:
                log.debug("update not delivered: %s", exc)
            finally:
                self._queue.task_done()

    async def flush(self) -> None:
        """Wait until every queued update has been written."""
        await self._queue.join()

    async def replay(self) -> None:
        """Send the stored conversation as message chunks (session/load)."""
        for message in history_for(self.agent.messages):
            if message.role == "user":
                self._send([update_user_message_text(message.text)])
            else:
                self._send([update_agent_message_text(message.text)])
        await self.flush()

    # ------------------------------------------------------------ permission

    async def _permit(self, item: PermissionItem) -> None:
        """Forward one ask; anything but a chosen allow option answers "deny"."""
        ask, call = item.ask, item.call
        broker = self.agent.broker
        if not ask.choices:  # a free-text question has no ACP form yet
            broker.answer(ask.id, "")
            return
        tool = call.tool if call is not None else None
        if tool in self._rejected:
            broker.answer(ask.id, "deny")
            return
        offered = permission_choices(ask.choices, tool)
        tool_call = ToolCallUpdate(
            tool_call_id=call.id if call is not None else f"ask_{ask.id}",
            title=call.title if call is not None else ask.question,
            kind=call.kind if call is not None else "other",
            status="pending",
            content=(call.proposal or None) if call is not None else None,
        )
        try:
            response = await self.client.request_permission(
                session_id=self.session_id, tool_call=tool_call, options=offered.options
            )
        except (RequestError, ConnectionError) as exc:
            log.warning("permission request failed (%s): denying", exc)
            broker.answer(ask.id, "deny")
            return
        outcome = response.outcome
        option = outcome.option_id if isinstance(outcome, AllowedOutcome) else None
        answer = offered.answers.get(option, "deny") if option is not None else "deny"
        if option == REJECT_ALWAYS and tool is not None:
            self._rejected.add(tool)
        if answer != "deny" and call is not None and call is self.translator.current:
            self._send(self.translator.running())
        broker.answer(ask.id, answer)

    # ------------------------------------------------------------------ turns

    @property
    def busy(self) -> bool:
        return self.agent.busy or (self._turn is not None and not self._turn.done())

    async def prompt(self, text: str) -> PromptResponse:
        """Run one turn to its end and say why it ended."""
        if self.busy:
            raise request_error(-32600, "a turn is already running in this session")
        invocation = split_invocation(text)
        if invocation is not None:
            skill = self.agent.skills.get(invocation[0])
            if skill is None:
                raise request_error(-32602, f"unknown skill '{invocation[0]}'")
            text = skill.expand(invocation[1])
        if not text.strip():
            return PromptResponse(stop_reason="end_turn")
        self.agent.offer_trust()  # the project's plugins/hooks/servers: asked once, no wait
        self.translator.begin_turn()
        self._cancelled = False
        task = asyncio.create_task(self._run_turn(text))
        self._turn = task
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:  # the connection is closing under us
            task.cancel()
            raise
        stats = None if task.cancelled() else task.result()
        self._send(self.translator.finish())
        await self.flush()
        return PromptResponse(stop_reason=self._stop_reason(stats))

    async def _run_turn(self, text: str) -> TurnStats:
        if not self._mcp_waited:  # the first turn sees every MCP server's tools
            self._mcp_waited = True
            if self.agent.extensions is not None:
                await self.agent.extensions.wait_mcp()
        return (await self.agent.run_turn(text)).stats

    def _stop_reason(self, stats: TurnStats | None) -> StopReason:
        facts = self.translator.facts
        if self._cancelled:
            return "cancelled"
        if facts.error is not None:
            raise request_error(-32603, facts.error)
        if facts.stopped:
            return "refusal"
        if stats is not None and stats.iterations >= self.agent.config.max_iterations:
            return "max_turn_requests"
        return "end_turn"

    def cancel(self) -> None:
        """session/cancel: stop the turn; its prompt answers `cancelled`."""
        if self._turn is not None and not self._turn.done():
            self._cancelled = True
            self._turn.cancel()
        for task in list(self._asks):
            task.cancel()

    # --------------------------------------------------------------- settings

    def set_mode(self, mode: str) -> None:
        if mode not in ("ask", "auto"):
            raise request_error(-32602, f"unknown mode '{mode}' (valid: ask, auto)")
        self.agent.set_approval(mode == "ask")

    async def set_model(self, name: str) -> None:
        """The same preflight as serve's set_model; a refusal is an error reply."""
        if self.busy:
            raise request_error(-32600, "a turn is running: cancel it or wait before switching")
        if not name.strip():
            raise request_error(-32602, "set_model needs a model name")
        self.translator.last_warning = ""
        if not await self.agent.set_model(name.strip()):
            raise request_error(-32602, self.translator.last_warning or "model switch failed")
        await self.flush()

    def config_options(self) -> list[Any]:
        return config_options(self.agent.approval.enabled, self.agent.model, self.models)

    # ---------------------------------------------------------------- closing

    async def aclose(self) -> None:
        """The editor went away: stop the turn, refuse open asks, save, disconnect."""
        self.cancel()
        self.agent.broker.drop_all()
        if self._turn is not None:
            await asyncio.gather(self._turn, return_exceptions=True)
        await asyncio.gather(*self._asks, return_exceptions=True)
        if self._pump is not None:
            self._pump.cancel()
            await asyncio.gather(self._pump, return_exceptions=True)
        self.agent.save()
        await self.agent.aclose()

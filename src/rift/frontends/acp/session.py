"""One ACP session: a thin adapter between the editor and rift's `Conversation`.

The core emits synchronously, so events are translated on the spot and queued for one
pump task, which starts once the session's response is on the wire (no update comes
for a session the editor has not heard of) and never waits on a person (an ask is a
task of its own); a prompt answers only after its updates are drained."""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
from pathlib import Path
from typing import Any, Literal

from acp import PromptResponse, RequestError, update_agent_message_text, update_user_message_text
from acp.helpers import update_available_commands
from acp.interfaces import Client
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    SessionInfoUpdate,
    SessionModeState,
    StopReason,
    ToolCallUpdate,
)
from msgspec import Struct, field

from rift.config.load import Config, McpServerConfig
from rift.core import (
    BY_NAME,
    Conversation,
    Invocation,
    Prompt,
    Refusal,
    StartOptions,
    answer,
    context_gauge,
    delegate,
    deny_for_session,
    list_models,
    list_sessions,
    replay,
    set_edit_review,
    set_mode,
    set_model,
    start_agent,
    swarm_changes,
)
from rift.errors import RiftError
from rift.events import Event
from rift.extend.loader import Extensions
from rift.frontends.acp.commands import available, parse
from rift.frontends.acp.delegate import EditorFs, EditorTerminal
from rift.frontends.acp.mapping import (
    REJECT_ALWAYS,
    config_options,
    mode_asks,
    mode_state,
    permission_choices,
)
from rift.frontends.acp.swarm import SwarmUpdates
from rift.frontends.acp.updates import Outgoing, PermissionItem, Translator
from rift.models.attachments import Attachments

log = logging.getLogger("rift.acp")

STOP_REASONS: dict[str, StopReason] = {
    "answered": "end_turn",
    "stopped": "end_turn",  # never "refusal": Zed deletes the user's message and turn on it
    "wrapped": "max_turn_requests",
    "cancelled": "cancelled",
    "refused": "cancelled",  # a queued prompt withdrawn before it ran
}
"""The core's turn ending → ACP stop reason; "error" is a JSON-RPC error instead."""


class AcpSession(Struct, dict=True):
    """Everything one `sessionId` owns."""

    client: Client
    conv: Conversation
    translator: Translator
    session_id: str
    """Fixed for the editor, even when `/clear` moves the conversation to a new file."""
    extensions: Extensions | None = None
    models: list[str] = field(default_factory=list)
    _updates: asyncio.Queue[Outgoing] = field(default_factory=asyncio.Queue)
    _pump: asyncio.Task[None] | None = None
    _cancelled: bool = False
    _mcp_waited: bool = False
    _asks: set[asyncio.Task[None]] = field(default_factory=set)
    _live: asyncio.Event = field(default_factory=asyncio.Event)
    _titled: bool = False
    _refused: set[tuple[str, tuple[str, ...]]] = field(default_factory=set)
    """This turn's refused asks (question and diff): the same change is not asked again."""

    @classmethod
    async def open(
        cls,
        client: Client,
        config: Config,
        options: StartOptions,
        capabilities: ClientCapabilities | None,
    ) -> AcpSession:
        """Start the conversation and wire it to the editor; raises ModelError."""
        relay: list[AcpSession] = []
        started = await start_agent(config, lambda e: relay[0].emit(e) if relay else None, options)
        conv = started.conversation
        translator = Translator(
            cwd=config.cwd,
            may_ask=lambda tool: mode_asks(conv.state.mode, tool),
            swarm=SwarmUpdates(lambda name: swarm_changes(conv, name)),
        )
        session = cls(
            client=client,
            conv=conv,
            translator=translator,
            session_id=conv.session_path.stem,
            extensions=started.agent.extensions,
        )
        relay.append(session)
        for notice in started.notices:
            log.warning("%s", getattr(notice, "text", notice))
        set_edit_review(conv, False)  # writes come as asks → session/request_permission
        session._delegate(capabilities)
        session._pump = asyncio.create_task(session._run_pump())
        try:
            session.models = (await list_models(conv)).models
        except RiftError as exc:
            log.warning("could not list models: %s", exc)
        return session

    def connect_mcp(self, servers: list[McpServerConfig]) -> None:
        """Start the editor's MCP servers; the person configured them, so they need no
        project trust."""
        if servers and self.extensions is None:
            log.warning("MCP servers from the editor ignored: this agent has no MCP layer")
        elif self.extensions is not None:
            for server in servers:
                self.extensions.start_mcp(server)

    def _delegate(self, capabilities: ClientCapabilities | None) -> None:
        fs = capabilities.fs if capabilities is not None else None
        can_read = bool(fs and fs.read_text_file)
        can_write = bool(fs and fs.write_text_file)
        files: EditorFs | None = None
        terminal: EditorTerminal | None = None
        if can_read or can_write:
            files = EditorFs(self.client, self.session_id, can_read=can_read, can_write=can_write)
        if capabilities is not None and capabilities.terminal:
            terminal = EditorTerminal(
                self.client, self.session_id, lambda tid: self._send(self.translator.running(tid))
            )
        delegate(self.conv, files=files, terminal=terminal)

    def emit(self, event: Event) -> None:
        self._send(self.translator.feed(event))

    def tell(self, update: Any) -> None:
        """Queue one session update of the adapter's own (mode and option changes)."""
        self._send([update])

    def _send(self, items: list[Outgoing]) -> None:
        for item in items:
            self._updates.put_nowait(item)

    def go_live(self) -> None:
        """The session's response is out (the server calls this with `call_soon`, and the
        SDK writes the response in the handler's step): announce, and start sending."""
        self.announce()
        self._live.set()

    def announce(self) -> None:
        """The commands `/` offers, the context gauge and, once there is one, the title."""
        self._send([update_available_commands(available(self.conv.state.skills))])
        self.emit(context_gauge(self.conv))
        if self._titled:
            self._send([self._title_update()])

    def _title_update(self) -> Any:
        items = list_sessions(self.conv).items
        mine = next((i for i in items if Path(i.path) == self.conv.session_path), None)
        when = mine.saved_at if mine else time.time()
        saved = datetime.datetime.fromtimestamp(when, tz=datetime.UTC)
        return SessionInfoUpdate(
            session_update="session_info_update",
            title=mine.title if mine else None,
            updated_at=saved.isoformat().replace("+00:00", "Z"),
        )

    async def _run_pump(self) -> None:
        await self._live.wait()
        while True:
            item = await self._updates.get()
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
                self._updates.task_done()

    async def flush(self) -> None:
        """Wait until every queued update has been written."""
        await self._updates.join()

    async def replay(self) -> None:
        """Send the stored conversation as its turns were shown live, before session/load
        answers."""
        self._live.set()
        translator = Translator(cwd=self.translator.cwd, may_ask=lambda _: False)
        for item in replay(self.conv):
            if isinstance(item, Prompt):
                self._titled = True
                self._send([*translator.finish(), update_user_message_text(item.text)])
            else:
                self._send(translator.feed(item))
        self._send(translator.finish())
        await self.flush()

    async def _permit(self, item: PermissionItem) -> None:
        """Forward one ask; anything but a chosen allow option answers "deny"."""
        ask, call = item.ask, item.call
        if not ask.choices:  # a free-text question has no ACP form yet
            answer(self.conv, ask.id, "")
            return
        tool = call.tool if call is not None else None
        change = (ask.question, tuple(ask.detail))
        if change in self._refused:  # e.g. the model retrying the very same change
            answer(self.conv, ask.id, "deny")
            return
        offered = permission_choices(ask.options, tool)
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
            answer(self.conv, ask.id, "deny")
            return
        outcome = response.outcome
        option = outcome.option_id if isinstance(outcome, AllowedOutcome) else None
        said = offered.answers.get(option, "deny") if option is not None else "deny"
        if option == REJECT_ALWAYS and tool is not None:
            deny_for_session(self.conv, tool)  # holds in every mode, asks or not
        if said == "deny":
            self._refused.add(change)
        if said != "deny" and call is not None and call is self.translator.current:
            self._send(self.translator.running())
        answer(self.conv, ask.id, said)

    async def prompt(self, text: str, images: tuple[str, ...] = ()) -> PromptResponse:
        """Run one turn (or one command) to its end and say why it ended. A prompt sent
        while a turn runs is refused, unless after `session/cancel` (then it queues)."""
        invocation = parse(text, self.conv.state.skills)
        if invocation is not None and not invocation.skill:
            if self.conv.busy and not self._cancelled:
                raise RequestError(-32600, "a turn is already running in this session")
            return await self._command(invocation)
        if invocation is not None:  # the owner expands skills in this spelling
            text = f"/skill:{invocation.name} {invocation.argument}".rstrip()
        if not text.strip():
            if not images:
                return PromptResponse(stop_reason="end_turn")
            text = "(see the attached image)"
        return await self._turn_to_end(text, images)

    async def _turn_to_end(self, text: str, images: tuple[str, ...]) -> PromptResponse:
        if not self._mcp_waited and self.extensions is not None:
            self._mcp_waited = True  # the first turn sees every MCP server's tools
            await self.extensions.wait_mcp()
        # After session/cancel the editor sends its next prompt at once: the core queues it.
        when_busy: Literal["queue", "refuse"] = "queue" if self._cancelled else "refuse"
        submitted = self.conv.submit(
            text, Attachments(images=images) if images else None, when_busy=when_busy
        )
        if isinstance(submitted.refusal, Refusal):
            await self.flush()
            code = -32600 if submitted.refusal.code == "busy" else -32602
            raise RequestError(code, submitted.refusal.text or "the prompt was refused")
        if submitted.status == "started":
            self._begin_turn()
        try:
            if submitted.status == "queued" and await asyncio.shield(submitted.began):
                self._begin_turn()  # the cancelled turn has ended; ours starts now
            ended = await asyncio.shield(submitted.result)
        except asyncio.CancelledError:  # the connection is closing under us
            self.conv.cancel()
            raise
        self._send(self.translator.finish())
        if not self._titled:
            self._titled = True
            self._send([self._title_update()])
        await self.flush()
        if ended.ending == "error":
            reason = ended.done.reason if ended.done is not None else ""
            raise RequestError(-32603, reason or "the turn failed")
        return PromptResponse(stop_reason=STOP_REASONS.get(ended.ending, "end_turn"))

    def _begin_turn(self) -> None:
        self._refused.clear()
        self._cancelled = False

    async def _command(self, invocation: Invocation) -> PromptResponse:
        """rift's own `/command`: what it reports becomes the agent's message; one whose
        work (a race, a turn) was cancelled answers `cancelled`."""
        self.translator.speak_notices = True
        after_cancel, self._cancelled = self._cancelled, False
        command = BY_NAME[invocation.name]
        if after_cancel:
            await self.conv.wait()  # sent right after session/cancel: the cancel ends first
        try:
            if invocation.name == "rewind" and not (invocation.argument or "1").isdigit():
                raise RequestError(-32602, "/rewind takes a number of turns")
            if invocation.name == "clear":
                if command.run(self.conv, invocation.argument):
                    self._titled = False
                    self._send([update_agent_message_text("Started a fresh conversation.\n")])
            elif command.run(self.conv, invocation.argument):
                await self.conv.wait()  # a turn (/retry, /init), a race or a rebind ends
                if invocation.name == "swarm":  # the race ran to its verdict, or was cancelled
                    self._send(self.translator.swarm.finish())  # then its open calls failed
        finally:
            self.translator.speak_notices = False
        await self.flush()
        return PromptResponse(stop_reason="cancelled" if self._cancelled else "end_turn")

    def cancel(self) -> None:
        """session/cancel: stop the turn; its prompt answers `cancelled`."""
        if self.conv.cancel():
            self._cancelled = True
        for task in list(self._asks):
            task.cancel()

    def modes(self) -> SessionModeState:
        return mode_state(self.conv.state.mode)

    def set_mode(self, mode: str) -> None:
        if not set_mode(self.conv, mode):
            raise RequestError(-32602, f"unknown mode '{mode}'")

    async def set_model(self, name: str) -> None:
        """The same preflight as serve's set_model; a refusal is an error reply."""
        if self.conv.busy:
            raise RequestError(-32600, "a turn is running: cancel it or wait before switching")
        if not name.strip():
            raise RequestError(-32602, "set_model needs a model name")
        started = set_model(self.conv, name)
        ended = await self.conv.wait() if started is True else started
        if ended is not True:
            said = ended.text if isinstance(ended, Refusal) else ""
            raise RequestError(-32602, said or "model switch failed")
        await self.flush()

    def config_options(self) -> list[Any]:
        return config_options(self.conv.state.mode, self.conv.state.model, self.models)

    async def aclose(self) -> None:
        """The editor went away: stop the turn, refuse open asks, save, disconnect."""
        self.cancel()
        await self.conv.close()
        await asyncio.gather(*self._asks, return_exceptions=True)
        if self._pump is not None:
            self._pump.cancel()
            await asyncio.gather(self._pump, return_exceptions=True)

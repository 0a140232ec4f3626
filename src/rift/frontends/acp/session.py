"""One ACP session: a thin adapter between the editor and rift's `Conversation`.

The conversation owner (core/conversation/owner.py) runs the turns, switches and
commands; this class turns ACP requests into its calls and its events into
`session/update`s. The core emits synchronously, the editor is reached
asynchronously: events are translated on the spot (`updates.Translator`) and
queued, and one pump task sends them in order. The pump starts when the
session is live, i.e. after the `session/new` (or `session/load`) response is
on the wire, so the commands, the context gauge and the title it opens with
never arrive for a session the editor has not heard of yet. An `ask` becomes a
`session/request_permission` in a task of its own, so the pump never waits on
a person. A prompt's response is sent only after the queue is drained, so
every update of a turn reaches the editor before the turn's `stopReason`.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
from pathlib import Path
from typing import Any

from acp import PromptResponse, RequestError, update_agent_message_text, update_user_message_text
from acp.helpers import update_available_commands
from acp.interfaces import Client
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    SessionInfoUpdate,
    StopReason,
    ToolCallUpdate,
)
from msgspec import Struct, field

from rift.config import Config, McpServerConfig
from rift.core import Conversation, Invocation, Prompt, Refusal, StartOptions, start_agent
from rift.errors import RiftError
from rift.events import Done, Event
from rift.extend.loader import Extensions
from rift.frontends.acp.commands import available, parse
from rift.frontends.acp.delegate import EditorFs, EditorTerminal
from rift.frontends.acp.mapping import (
    REJECT_ALWAYS,
    config_options,
    mode_asks,
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
}
"""`done.outcome` → ACP stop reason; "error" is a JSON-RPC error instead."""


def request_error(code: int, message: str) -> RequestError:
    """A JSON-RPC error whose message says what went wrong in words."""
    return RequestError(code, message)


class AcpSession(Struct, dict=True):
    """Everything one `sessionId` owns."""

    client: Client
    conv: Conversation
    translator: Translator
    session_id: str
    """Fixed for the editor, even when `/clear` moves the conversation to a new file."""
    extensions: Extensions | None = None
    models: list[str] = field(default_factory=list)
    _queue: asyncio.Queue[Outgoing] = field(default_factory=asyncio.Queue)
    _pump: asyncio.Task[None] | None = None
    _cancelled: bool = False
    _mcp_waited: bool = False
    _asks: set[asyncio.Task[None]] = field(default_factory=set)
    _live: asyncio.Event = field(default_factory=asyncio.Event)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held by the running turn: a prompt sent after `session/cancel` waits for it."""
    _titled: bool = False
    _refused: set[tuple[str, tuple[str, ...]]] = field(default_factory=set)
    """This turn's refused asks (question and diff): the same change is not asked again."""

    # ---------------------------------------------------------------- opening

    @classmethod
    async def open(
        cls,
        client: Client,
        config: Config,
        options: StartOptions,
        capabilities: ClientCapabilities | None,
    ) -> AcpSession:
        """Start the conversation (preflight, resume) and wire it to the editor; raises
        ModelError."""
        relay: list[AcpSession] = []
        started = await start_agent(config, lambda e: relay[0].emit(e) if relay else None, options)
        conv = started.conversation
        translator = Translator(
            cwd=config.cwd,
            may_ask=lambda tool: mode_asks(conv.mode, tool),
            swarm=SwarmUpdates(conv.swarm_changes),
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
        conv.edit_review = False  # writes come as asks → session/request_permission
        session._delegate(capabilities)
        session._pump = asyncio.create_task(session._run_pump())
        try:
            session.models = (await conv.list_models()).models
        except RiftError as exc:
            log.warning("could not list models: %s", exc)
        return session

    def connect_mcp(self, servers: list[McpServerConfig]) -> None:
        """Start the editor's MCP servers with the agent's own (their tools arrive live).

        The person configured them in the editor, so, like the user config's
        servers, they need no project trust.
        """
        if servers and self.extensions is None:
            log.warning("MCP servers from the editor ignored: this agent has no MCP layer")
            return
        for server in servers:
            assert self.extensions is not None
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
        self.conv.delegate(files=files, terminal=terminal)

    # ------------------------------------------------------------ the stream

    def emit(self, event: Event) -> None:
        self._send(self.translator.feed(event))

    def tell(self, update: Any) -> None:
        """Queue one session update of the adapter's own (mode and option changes)."""
        self._send([update])

    def _send(self, items: list[Outgoing]) -> None:
        for item in items:
            self._queue.put_nowait(item)

    def go_live(self) -> None:
        """The session's response is out: announce, and start sending.

        The server calls this with `call_soon` from the request handler: the SDK
        writes the response in the same step the handler returns (the stdio
        transport never suspends in `send`), so it is on the wire first.
        """
        self.announce()
        self._live.set()

    def announce(self) -> None:
        """The commands `/` offers, the context gauge and, once there is one, the title."""
        self._send([update_available_commands(available(self.conv.skills))])
        self.emit(self.conv.context_gauge())
        if self._titled:
            self._send([self._title_update()])

    def _title_update(self) -> Any:
        items = self.conv.list_sessions().items
        mine = next((i for i in items if Path(i.path) == self.conv.session_path), None)
        saved = datetime.datetime.fromtimestamp(
            mine.saved_at if mine else time.time(), tz=datetime.UTC
        )
        return SessionInfoUpdate(
            session_update="session_info_update",
            title=mine.title if mine else None,
            updated_at=saved.isoformat().replace("+00:00", "Z"),
        )

    async def _run_pump(self) -> None:
        await self._live.wait()
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
        """Send the stored conversation the way its turns were shown live, tool calls,
        diffs and plans included, before session/load answers."""
        self._live.set()
        translator = Translator(cwd=self.translator.cwd, may_ask=lambda _: False)
        for item in self.conv.replay():
            if isinstance(item, Prompt):
                self._titled = True
                self._send([*translator.finish(), update_user_message_text(item.text)])
            else:
                self._send(translator.feed(item))
        self._send(translator.finish())
        await self.flush()

    # ------------------------------------------------------------ permission

    async def _permit(self, item: PermissionItem) -> None:
        """Forward one ask; anything but a chosen allow option answers "deny"."""
        ask, call = item.ask, item.call
        if not ask.choices:  # a free-text question has no ACP form yet
            self.conv.answer(ask.id, "")
            return
        tool = call.tool if call is not None else None
        change = (ask.question, tuple(ask.detail))
        if change in self._refused:  # e.g. the model retrying the very same change
            self.conv.answer(ask.id, "deny")
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
            self.conv.answer(ask.id, "deny")
            return
        outcome = response.outcome
        option = outcome.option_id if isinstance(outcome, AllowedOutcome) else None
        answer = offered.answers.get(option, "deny") if option is not None else "deny"
        if option == REJECT_ALWAYS and tool is not None:
            self.conv.deny_for_session(tool)  # holds in every mode, asks or not
        if answer == "deny":
            self._refused.add(change)
        if answer != "deny" and call is not None and call is self.translator.current:
            self._send(self.translator.running())
        self.conv.answer(ask.id, answer)

    # ------------------------------------------------------------------ turns

    @property
    def busy(self) -> bool:
        return self.conv.busy or self._lock.locked()

    async def prompt(self, text: str, images: tuple[str, ...] = ()) -> PromptResponse:
        """Run one turn (or one command) to its end and say why it ended.

        While a turn runs, another prompt is refused, unless the running turn
        was cancelled: then the new one runs as soon as the cancelled one has
        ended, as editors expect after `session/cancel`.
        """
        if self.busy and not self._cancelled:
            raise request_error(-32600, "a turn is already running in this session")
        async with self._lock:
            invocation = parse(text, self.conv.skills)
            if invocation is not None and not invocation.skill:
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
        self.translator.begin_turn()
        self._refused.clear()
        self._cancelled = False
        submitted = self.conv.submit(text, Attachments(images=images) if images else None)
        if isinstance(submitted, Refusal):
            await self.flush()
            code = -32600 if submitted.code == "busy" else -32602
            raise request_error(code, submitted.text or "the prompt was refused")
        try:
            await self.conv.wait()
        except asyncio.CancelledError:  # the connection is closing under us
            self.conv.cancel()
            raise
        self._send(self.translator.finish())
        if not self._titled:
            self._titled = True
            self._send([self._title_update()])
        await self.flush()
        return PromptResponse(stop_reason=self._stop_reason(self.translator.done))

    def _stop_reason(self, done: Done | None) -> StopReason:
        if done is None or self._cancelled:
            return "cancelled"
        if done.outcome == "error":
            raise request_error(-32603, done.reason or "the turn failed")
        if done.stats.iterations >= self.conv.config.max_iterations:
            return "max_turn_requests"  # the budget ran out (below 3 the core cannot wrap up)
        return STOP_REASONS.get(done.outcome, "end_turn")

    async def _command(self, invocation: Invocation) -> PromptResponse:
        """rift's own `/command`: what it reports becomes the agent's message; one whose
        work (a race, a turn) was cancelled answers `cancelled`."""
        self.translator.speak_notices = True
        self._cancelled = False
        try:
            if invocation.name == "undo":
                self.conv.undo()
            elif invocation.name == "rewind":
                count = invocation.argument or "1"
                if not count.isdigit():
                    raise request_error(-32602, "/rewind takes a number of turns")
                self.conv.rewind(int(count))
            elif invocation.name == "compact":
                if self.conv.compact():
                    await self.conv.wait()
            elif invocation.name in ("swarm", "merge"):
                await self._swarm_command(invocation)
            elif invocation.name == "clear":
                if self.conv.new_conversation():
                    self._titled = False
                    self._send([update_agent_message_text("Started a fresh conversation.\n")])
            elif self.conv.command(invocation.name, invocation.argument):
                await self.conv.wait()  # a turn (/retry, /init) or a rebind runs to its end
        finally:
            self.translator.speak_notices = False
        await self.flush()
        return PromptResponse(stop_reason="cancelled" if self._cancelled else "end_turn")

    async def _swarm_command(self, invocation: Invocation) -> None:
        """/swarm runs the race to its verdict (a plan and a tool call per candidate);
        /merge answers at once."""
        argument = invocation.argument
        if invocation.name == "merge":
            self.conv.merge_line(argument)
        elif self.conv.swarm_line(argument):
            await self.conv.wait()
            self._send(self.translator.swarm.finish())  # cancelled: open calls failed

    def cancel(self) -> None:
        """session/cancel: stop the turn; its prompt answers `cancelled`."""
        if self.conv.cancel():
            self._cancelled = True
        for task in list(self._asks):
            task.cancel()

    # --------------------------------------------------------------- settings

    @property
    def mode(self) -> str:
        return self.conv.mode

    def set_mode(self, mode: str) -> None:
        if not self.conv.set_mode(mode):
            raise request_error(-32602, f"unknown mode '{mode}'")

    async def set_model(self, name: str) -> None:
        """The same preflight as serve's set_model; a refusal is an error reply."""
        if self.busy:
            raise request_error(-32600, "a turn is running: cancel it or wait before switching")
        if not name.strip():
            raise request_error(-32602, "set_model needs a model name")
        started = self.conv.set_model(name)
        ended = await self.conv.wait() if started is True else started
        if ended is not True:
            said = ended.text if isinstance(ended, Refusal) else ""
            raise request_error(-32602, said or "model switch failed")
        await self.flush()

    def config_options(self) -> list[Any]:
        return config_options(self.mode, self.conv.model, self.models)

    # ---------------------------------------------------------------- closing

    async def aclose(self) -> None:
        """The editor went away: stop the turn, refuse open asks, save, disconnect."""
        self.cancel()
        await self.conv.close()
        await asyncio.gather(*self._asks, return_exceptions=True)
        if self._pump is not None:
            self._pump.cancel()
            await asyncio.gather(self._pump, return_exceptions=True)

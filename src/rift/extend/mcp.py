"""MCP servers as tools: each configured server's tools become `<server>_<tool>`.

Built on the optional `mcp` SDK, imported only when a config names a server. Each server
gets one asyncio task that owns its whole connection (anyio's cancel scopes demand it);
tool calls from turns share the session, and the tools are registered live once listed.
A server that fails to start, or dies, is an `info` line and tool errors, never a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import logging
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from rift.config.load import McpServerConfig
from rift.errors import ToolError
from rift.tools.base import Tool, ToolContext, ToolOutput, ToolRun, first_text, middle_truncate

if TYPE_CHECKING:
    from mcp import ClientSession

CALL_TIMEOUT = 60.0
CONNECT_TIMEOUT = 30.0
CLOSE_GRACE = 5.0
OUTPUT_LIMIT = 30_000
MAX_NAME = 64
log = logging.getLogger("rift.mcp")


def tool_name(server: str, tool: str) -> str:
    """`<server>_<tool>`, limited to the characters and length every provider accepts."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", f"{server}_{tool}")[:MAX_NAME]


def _describe(exc: BaseException) -> str:
    """The first line of the first real error inside the (nested) exception groups that
    anyio task groups raise."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]


def _declared_read_only(remote: Any) -> bool:
    """The server's `readOnlyHint` for a tool: only then may plan mode call it. A server
    the user trusted can still be wrong about it; one that says nothing is not trusted to
    be harmless."""
    annotations = getattr(remote, "annotations", None)
    if annotations is None:
        return False
    hint = getattr(annotations, "read_only_hint", getattr(annotations, "readOnlyHint", None))
    return hint is True


def _render(result: Any) -> tuple[bool, str]:
    """A CallToolResult as (ok, text): text blocks verbatim, other blocks named."""
    parts: list[str] = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(block.text))
        elif kind == "resource_link":
            parts.append(f"[resource {block.uri}]")
        elif kind == "resource":
            inner = block.resource
            parts.append(str(getattr(inner, "text", None) or f"[resource {inner.uri}]"))
        else:
            parts.append(f"[{kind or 'unknown'} content omitted]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False))
    text = "\n".join(parts).strip()
    return not bool(getattr(result, "is_error", False)), text


class McpConnection(Struct, dict=True):
    """One server's session, owned by one task from connect to close."""

    server: McpServerConfig
    cwd: Path
    notice: Callable[[str], None]
    """Reports progress and failures as `info` lines."""
    register: Callable[[Mapping[str, Tool]], object]
    """Adds the server's tools to the agent, live."""
    session: ClientSession | None = None
    tools: dict[str, Tool] = field(default_factory=dict)
    error: str | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the server is connected or has failed."""
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None

    @property
    def name(self) -> str:
        return self.server.name

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"mcp:{self.name}")

    async def aclose(self) -> None:
        """Leave the session and stop the server; a stuck one is cancelled after a grace."""
        self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), CLOSE_GRACE)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        connected = False
        try:
            async with contextlib.AsyncExitStack() as stack:
                session = await self._connect(stack)
                self.tools = await self._list_tools(session)
                self.session, connected = session, True
                self.register(self.tools)
                self.notice(f"mcp '{self.name}': {len(self.tools)} tools")
                self.ready.set()
                await self._stop.wait()
                self.session = None
        except Exception as exc:  # the SDK raises many kinds (groups, OSError, MCPError)
            log.warning("mcp server %r failed", self.name, exc_info=True)
            self.error = _describe(exc)
            if not self._stop.is_set():
                state = "stopped" if connected else "failed to start"
                self.notice(f"mcp '{self.name}' {state}: {self.error}")
        finally:
            self.session = None
            self.ready.set()

    async def _connect(self, stack: contextlib.AsyncExitStack) -> ClientSession:
        # Imported here: the SDK is an optional extra and heavy (pydantic, anyio, httpx2).
        # rift.net._httpx first, so the httpx the SDK imports skips its CLI (click, rich).
        import rift.net._httpx  # noqa: F401, I001 (must come first)
        from mcp import ClientSession

        server = self.server
        if server.command:
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(
                command=server.command,
                args=list(server.args),
                env=dict(server.env) or None,
                cwd=self.cwd,
            )
            read, write = await stack.enter_async_context(stdio_client(params, errlog=sys.stderr))
        else:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            assert server.url is not None
            client = await stack.enter_async_context(
                create_mcp_http_client(headers=dict(server.headers) or None)
            )
            read, write = await stack.enter_async_context(
                streamable_http_client(server.url, http_client=client)
            )
        session = await stack.enter_async_context(
            ClientSession(read, write, read_timeout_seconds=CONNECT_TIMEOUT)
        )
        await session.initialize()
        return session

    async def _list_tools(self, session: ClientSession) -> dict[str, Tool]:
        from mcp.types import PaginatedRequestParams

        page = await session.list_tools()
        listed = list(page.tools)
        while page.next_cursor:
            page = await session.list_tools(params=PaginatedRequestParams(cursor=page.next_cursor))
            listed.extend(page.tools)
        tools: dict[str, Tool] = {}
        for remote in listed:
            name = tool_name(self.name, remote.name)
            if name in tools:
                self.notice(f"mcp '{self.name}': tool '{remote.name}' skipped (name clash)")
                continue
            description = (remote.description or remote.name).strip()
            schema = remote.input_schema if isinstance(remote.input_schema, dict) else {}
            tools[name] = Tool(
                name=name,
                description=f"{description} (mcp: {self.name})",
                parameters=schema or {"type": "object", "properties": {}},
                run=self._caller(remote.name),
                kind="other",  # a server declares no kind; rift cannot tell what it does
                summary=first_text,
                plan_safe=_declared_read_only(remote),
            )
        return tools

    def _caller(self, remote: str) -> ToolRun:
        async def run(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
            return await self.call(remote, args)

        return run

    async def call(self, remote: str, args: dict[str, Any]) -> ToolOutput:
        session = self.session
        if session is None:
            why = self.error or "not connected"
            raise ToolError(f"mcp server '{self.name}' is unavailable ({why})")
        try:
            result = await session.call_tool(remote, args, read_timeout_seconds=CALL_TIMEOUT)
        except Exception as exc:  # transport, timeout and protocol errors: the model reads them
            log.info("mcp call %s/%s failed", self.name, remote, exc_info=True)
            raise ToolError(f"mcp '{self.name}' tool '{remote}' failed: {_describe(exc)}") from exc
        ok, text = _render(result)
        text = middle_truncate(text, OUTPUT_LIMIT) if text else "(no output)"
        if not ok:
            raise ToolError(f"mcp '{self.name}' tool '{remote}' reported an error: {text}")
        return ToolOutput(True, text)


class McpManager(Struct, dict=True):
    """Every started MCP connection of one agent."""

    cwd: Path
    notice: Callable[[str], None]
    register: Callable[[Mapping[str, Tool]], object]
    connections: dict[str, McpConnection] = field(default_factory=dict)

    def start(self, server: McpServerConfig) -> None:
        """Connect in the background; needs a running event loop."""
        if server.name in self.connections:
            return
        if importlib.util.find_spec("mcp") is None:  # not imported here: that takes a second
            from rift.models.local_weights import install_command

            hint = f"the 'mcp' package is not installed ({install_command('mcp')})"
            self.notice(f"mcp '{server.name}' not started: {hint}")
            return
        connection = McpConnection(server, self.cwd, self.notice, self.register)
        self.connections[server.name] = connection
        connection.start()

    async def wait_ready(self, timeout: float = CONNECT_TIMEOUT + 5) -> None:
        """Until every started server is connected or failed (headless runs wait for this)."""
        waits = [c.ready.wait() for c in self.connections.values()]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*waits), timeout)

    async def aclose(self) -> None:
        await asyncio.gather(*(c.aclose() for c in self.connections.values()))

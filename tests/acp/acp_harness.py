"""Drive the real `rift --acp` with the client side of the ACP SDK itself.

A test builds a `Recorder` (the editor: it records every update and answers
permission, fs and terminal requests as scripted), then `async with
connect(recorder, project, server) as conn:` spawns rift as a subprocess
against the fake model server, runs `initialize`, and hands back the SDK's
`ClientSideConnection`. Nothing of rift is imported: the wire is the contract.
Every message rift sends is checked against the official ACP schema
(acp_schema.py) when the connection closes.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    RequestPermissionResponse,
    spawn_agent_process,
)
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
    ReadTextFileResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)
from acp_schema import WireChecker

MODEL = "fake-model"
HANG = "hang"
"""A permission answer that never comes (until the request is cancelled)."""
CANCEL = "cancel"
"""A permission answered with the `cancelled` outcome."""


def rift_argv() -> list[str]:
    custom = os.environ.get("RIFT_BIN")
    return custom.split() if custom else [sys.executable, "-m", "rift"]


@dataclass
class Terminal:
    command: str
    args: list[str]
    cwd: str | None
    process: asyncio.subprocess.Process
    output: bytes = b""
    released: bool = False


@dataclass
class Recorder:
    """The editor side: records what rift sends and answers it as scripted."""

    answers: list[str] = field(default_factory=list)
    """Permission option ids to pick, in order (HANG, CANCEL); default reject_once."""
    buffers: dict[str, str] | None = None
    """Advertise fs/*: path → the editor's buffer text (the disk is never touched)."""
    terminal: bool = False
    updates: list[Any] = field(default_factory=list)
    permissions: list[tuple[Any, list[Any]]] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    writes: list[tuple[str, str]] = field(default_factory=list)
    terminals: dict[str, Terminal] = field(default_factory=dict)

    def capabilities(self) -> ClientCapabilities:
        fs = self.buffers is not None
        return ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=fs, write_text_file=fs),
            terminal=self.terminal,
        )

    # ------------------------------------------------------------ requests

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **_: Any
    ) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        answer = self.answers.pop(0) if self.answers else "reject_once"
        if answer == HANG:
            await asyncio.Event().wait()
        if answer == CANCEL:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)

    async def read_text_file(
        self,
        path: str,
        session_id: str,
        limit: int | None = None,
        line: int | None = None,
        **_: Any,
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        assert self.buffers is not None
        return ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(
        self, content: str, path: str, session_id: str, **_: Any
    ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        assert self.buffers is not None
        self.buffers[path] = content
        return WriteTextFileResponse()

    async def create_terminal(
        self,
        command: str,
        session_id: str,
        args: list[str] | None = None,
        cwd: str | None = None,
        **_: Any,
    ) -> CreateTerminalResponse:
        process = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        terminal_id = f"term-{len(self.terminals) + 1}"
        self.terminals[terminal_id] = Terminal(command, list(args or []), cwd, process)
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> WaitForTerminalExitResponse:
        terminal = self.terminals[terminal_id]
        assert terminal.process.stdout is not None
        terminal.output += await terminal.process.stdout.read()
        code = await terminal.process.wait()
        return WaitForTerminalExitResponse(exit_code=code)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> TerminalOutputResponse:
        terminal = self.terminals[terminal_id]
        code = terminal.process.returncode
        return TerminalOutputResponse(
            output=terminal.output.decode(),
            truncated=False,
            exit_status=TerminalExitStatus(exit_code=code) if code is not None else None,
        )

    async def release_terminal(self, session_id: str, terminal_id: str, **_: Any) -> None:
        terminal = self.terminals[terminal_id]
        terminal.released = True
        if terminal.process.returncode is None:
            terminal.process.kill()
            await terminal.process.wait()

    async def kill_terminal(self, session_id: str, terminal_id: str, **_: Any) -> None:
        self.terminals[terminal_id].process.kill()

    # ------------------------------------------------------------- queries

    def of(self, kind: str) -> list[Any]:
        """Updates whose `sessionUpdate` is `kind`."""
        return [u for u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))

    def tool_calls(self) -> dict[str, list[Any]]:
        """tool_call + tool_call_update updates grouped by toolCallId, in order."""
        calls: dict[str, list[Any]] = {}
        for update in self.updates:
            if update.session_update in ("tool_call", "tool_call_update"):
                calls.setdefault(update.tool_call_id, []).append(update)
        return calls

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = 20) -> Any:
        deadline = asyncio.get_running_loop().time() + timeout
        while not (value := predicate()):
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"timed out; updates so far: {self.updates}")
            await asyncio.sleep(0.02)
        return value


@dataclass
class Connected:
    conn: Any
    process: asyncio.subprocess.Process
    init: InitializeResponse
    checker: WireChecker


@asynccontextmanager
async def connect(
    recorder: Recorder, project: Path, server: Any, *extra: str
) -> AsyncIterator[Connected]:
    """`rift --acp --host <fake> -m fake-model EXTRA…` in `project`, initialized.

    When the block ends without an error, every message rift sent must have
    passed the schema check.
    """
    argv = [*rift_argv(), "--acp", "--host", server.url, "-m", MODEL, *extra]
    checker = WireChecker()
    log = (project.parent / "rift-acp.stderr").open("ab")
    try:
        async with spawn_agent_process(
            recorder,
            argv[0],
            *argv[1:],
            env=dict(os.environ),
            cwd=project,
            # rift saves and closes its sessions after stdin closes; the SDK's 2 s grace
            # (then SIGTERM) is too short on a loaded machine.
            transport_kwargs={"stderr": log.fileno(), "shutdown_timeout": 30.0},
            observers=[checker.observe],
            use_unstable_protocol=True,
        ) as (conn, process):
            init = await conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=recorder.capabilities(),
                client_info=Implementation(name="rift-tests", version="0"),
            )
            yield Connected(conn, process, init, checker)
    finally:
        log.close()
    assert checker.verify() > 0


def run(coro: Any, timeout: float = 60) -> Any:
    """Run one async scenario with an overall time limit."""

    async def bounded() -> Any:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(bounded())

"""`rift --acp`: the Agent Client Protocol (Zed, JetBrains, Neovim) on stdio.

JSON-RPC 2.0, one message per line, spoken through the `agent-client-protocol`
SDK (the `acp` extra), which is imported only here. The modules:

    transport.py  stdio lines ⇄ messages; bad lines get a JSON-RPC error reply
    handshake.py  the `initialize` answer, sent before the SDK has loaded
    server.py     the ACP methods (initialize, session/*) → rift's core
    session.py    one session: an adapter over its Conversation, the update pump
    updates.py    core events → session/update notifications (tool calls, diffs)
    commands.py   the `/` commands an editor offers, and what a `/name` prompt means
    mapping.py    prompts, permission options, modes, MCP servers
    delegate.py   the editor's fs/* and terminal/* as rift's files and shell

stdout carries protocol messages only: file descriptor 1 points at stderr while the
connection runs, so a stray print can never corrupt the stream."""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
import sys
from collections.abc import Mapping
from typing import Any, BinaryIO, cast

from rift.config.load import Overrides

__all__ = ["run"]


def run(env: Mapping[str, str], overrides: Overrides) -> int:
    """Serve ACP on stdin/stdout until the editor closes stdin; returns the exit status."""
    if importlib.util.find_spec("acp") is None:  # checked before stdout is taken
        from rift.models.local_weights import install_command

        print(
            f"rift: --acp needs the Agent Client Protocol SDK: {install_command('acp')}",
            file=sys.stderr,
        )
        return 2
    sys.stdout.flush()
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="rift --acp: %(message)s")
    logging.getLogger("rift.acp").setLevel(logging.INFO)  # notices too: editors keep stderr
    try:
        return asyncio.run(_serve(env, overrides, protocol_out))
    except KeyboardInterrupt:
        return 130


def _preload() -> None:
    """Worker thread: import what the first `session/new` needs, off the handshake's path."""
    import acp  # noqa: F401

    import rift.frontends.acp.server  # noqa: F401


async def _loaded(loading: asyncio.Future[None]) -> bool:
    """Whether the preload worked; a broken SDK install is one line on stderr."""
    try:
        await loading
    except ImportError as exc:
        print(f"rift: --acp could not start (a broken install?): {exc}", file=sys.stderr)
        return False
    return True


async def _serve(env: Mapping[str, str], overrides: Overrides, out: BinaryIO) -> int:
    from rift.frontends.acp.handshake import initialize_result, is_initialize
    from rift.frontends.acp.transport import StdioTransport

    # The reader thread gets its own handle on fd 0: were it sys.stdin, leaving with the
    # thread still blocked in a read would make the interpreter's shutdown abort.
    transport = StdioTransport(os.fdopen(os.dup(0), "rb"), out)
    transport.start()
    loading = asyncio.get_running_loop().run_in_executor(None, _preload)
    first = await transport.receive()
    if first is None:
        return 0 if await _loaded(loading) else 1
    handshake: dict[str, Any] | None = None
    if is_initialize(first):
        handshake = first["params"]
        await transport.send({"jsonrpc": "2.0", "id": first["id"], "result": initialize_result()})
    else:
        transport.push_back(first)  # the SDK answers it, errors included
    if not await _loaded(loading):
        return 1

    import acp

    from rift.frontends.acp.server import RiftAcpAgent

    agent = RiftAcpAgent(env, overrides, handshake)
    try:
        await acp.run_agent(cast(acp.Agent, agent), transport, use_unstable_protocol=True)
    finally:
        await agent.aclose()
    return 0

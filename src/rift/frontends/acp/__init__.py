"""`rift --acp`: the Agent Client Protocol (Zed, JetBrains, Neovim) on stdio.

JSON-RPC 2.0, one message per line, spoken through the `agent-client-protocol`
SDK (the `acp` extra), which is imported only here. The modules:

    transport.py  stdio lines ⇄ messages; bad lines get a JSON-RPC error reply
    server.py     the ACP methods (initialize, session/*) → rift's core
    session.py    one session: its Agent, the update pump, prompts, permissions
    updates.py    core events → session/update notifications (tool calls, diffs)
    mapping.py    prompts, permission options, modes, MCP servers
    delegate.py   the editor's fs/* and terminal/* as rift's files and shell

stdout carries protocol messages only: file descriptor 1 is pointed at stderr
while the connection runs, so a stray print can never corrupt the stream.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Mapping
from typing import BinaryIO, cast

from rift.config import Overrides

__all__ = ["run"]


def run(env: Mapping[str, str], overrides: Overrides) -> int:
    """Serve ACP on stdin/stdout until the editor closes stdin; returns the exit status."""
    try:
        import acp  # noqa: F401  (the optional dependency; checked before stdout is taken)
    except ImportError:
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
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.WARNING,
        format="rift --acp: %(message)s",
    )
    logging.getLogger("rift.acp").setLevel(logging.INFO)  # notices too: editors keep stderr
    try:
        return asyncio.run(_serve(env, overrides, protocol_out))
    except KeyboardInterrupt:
        return 130


async def _serve(env: Mapping[str, str], overrides: Overrides, out: BinaryIO) -> int:
    import acp

    from rift.frontends.acp.server import RiftAcpAgent
    from rift.frontends.acp.transport import StdioTransport

    transport = StdioTransport(sys.stdin.buffer, out)
    transport.start()
    agent = RiftAcpAgent(env, overrides)
    try:
        await acp.run_agent(cast(acp.Agent, agent), transport)
    finally:
        await agent.aclose()
    return 0

"""The `initialize` answer, built from plain data so an editor sees rift ready at once.

Importing the SDK and the core takes most of a second, so `rift --acp` answers the first
`initialize` from this dict while a worker thread imports them. Standard library only."""

from __future__ import annotations

import importlib.util
from typing import Any

from rift import __version__

PROTOCOL_VERSION = 1
"""The ACP major version rift speaks (the SDK's `acp.PROTOCOL_VERSION`)."""


def initialize_result() -> dict[str, Any]:
    """rift's `InitializeResponse` in wire (camelCase) form."""
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": False, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": importlib.util.find_spec("mcp") is not None, "sse": False},
            "sessionCapabilities": {"list": {}, "close": {}, "resume": {}, "fork": {}},
        },
        "agentInfo": {"name": "rift", "title": "rift", "version": __version__},
        "authMethods": [],
    }


def is_initialize(message: dict[str, Any]) -> bool:
    """A well-formed `initialize` request the fast path may answer; anything odd is left
    to the SDK, whose validation answers with the exact JSON-RPC error."""
    params = message.get("params")
    return (
        message.get("method") == "initialize"
        and "id" in message
        and isinstance(params, dict)
        and isinstance(params.get("protocolVersion"), int)
        and isinstance(params.get("clientCapabilities") or {}, dict)
        and isinstance(params.get("clientInfo") or {}, dict)
    )

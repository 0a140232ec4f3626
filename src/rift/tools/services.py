"""Services the core may lend a tool through its context, described as protocols.

A tool names what it needs from the session here, never the core class that
provides it, so tools stay below the core: the core's LSP service
(core/conversation/lsp.py) satisfies `Diagnostics` structurally.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Diagnostics(Protocol):
    """Diagnostics from a language server for a file a tool just changed."""

    async def report(self, path: Path, shown: str, old: str | None, new: str) -> str:
        """Text for the model about `path` after the change ("" when nothing to say)."""
        ...


async def diagnostics_after_edit(
    extras: dict[str, Any], path: Path, shown: str, old: str | None, new: str
) -> str:
    """The write/edit hook: "" unless the session lent a diagnostics service."""
    service = extras.get("lsp")
    if not isinstance(service, Diagnostics):
        return ""
    return await service.report(path, shown, old, new)

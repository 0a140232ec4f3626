"""Test doubles of the `Gate` and `Journal` protocols, plus a helper to run a tool.

They stand in for an interface of `rift.tools.base`, not for rift's own code.
Kept out of conftest.py so test modules can import them by a unique name.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rift.tools.base import Tool, ToolContext, ToolOutput, WriteVerdict


@dataclass
class RecordingGate:
    """Allows everything (unless told otherwise) and remembers what it was asked."""

    denied_paths: set[Path] = field(default_factory=set)
    write_verdict: WriteVerdict | None = None
    bash_refusal: str | None = None
    reads: list[Path] = field(default_factory=list)
    writes: list[tuple[str, Path, str | None, str]] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    searches: list[tuple[str, str, str | None]] = field(default_factory=list)
    refusals: int = 0

    def authorize_tool(self, tool: str, *, plan_safe: bool) -> str | None:
        return None

    def check_read(self, path: Path) -> str | None:
        self.reads.append(path)
        for denied in self.denied_paths:
            if path == denied or denied in path.parents:
                return f"{path} blocked by permission rule 'read({denied.name})'"
        return None

    def check_opened(self, path: Path, info: Any) -> str | None:
        """Hard links are the real gate's business (tests/reliability/test_hard_links.py)."""
        return None

    async def authorize_write(
        self, tool: str, path: Path, old: str | None, new: str, *, runs_later: str = ""
    ) -> WriteVerdict:
        self.writes.append((tool, path, old, new))
        if self.write_verdict is not None:
            return self.write_verdict
        return WriteVerdict(allowed=True, content=new)

    async def authorize_bash(self, command: str) -> str | None:
        self.commands.append(command)
        return self.bash_refusal

    async def authorize_search(
        self, query: str, url: str, private_address: str | None, *, approved: bool = False
    ) -> str | None:
        self.searches.append((query, url, private_address))
        return None


@dataclass
class RecordingJournal:
    entries: list[tuple[Path, bytes | None]] = field(default_factory=list)

    def record(self, path: Path, prior: bytes | None) -> None:
        self.entries.append((path, prior))

    def wrote(self, path: Path, written: Any) -> None:
        """The identity of the file left behind: not needed by these tests."""


def call(tool: Tool, ctx: ToolContext, **args: Any) -> ToolOutput:
    """Run a tool to completion on a fresh event loop."""

    async def go() -> ToolOutput:
        return await tool.run(args, ctx)

    return asyncio.run(go())

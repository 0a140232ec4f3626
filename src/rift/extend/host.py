"""What extensions need from the agent they attach to, as a protocol: the core's runtime
satisfies it structurally, so extend/ never imports the core (no import circle).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from rift.events import Event
from rift.tools.base import Tool
from rift.tools.delegation import Persona


class PersonaHolder(Protocol):
    """The sub-agent runner's persona table, which extensions fill."""

    personas: Mapping[str, Persona]


class ApprovalState(Protocol):
    """Whether asks are on: trust asks are pointless when every call runs unasked."""

    @property
    def enabled(self) -> bool: ...


class Asker(Protocol):
    """Asks a person something; None when nobody answers (callers deny)."""

    async def ask(self, question: str, detail: list[str], choices: list[str]) -> str | None: ...


class ExtensionHost(Protocol):
    """The agent, as far as plugins, personas, hooks and MCP servers are concerned."""

    @property
    def subagents(self) -> PersonaHolder: ...
    @property
    def tools(self) -> Mapping[str, Tool]: ...
    @property
    def approval(self) -> ApprovalState: ...
    @property
    def broker(self) -> Asker: ...
    @property
    def emit(self) -> Callable[[Event], None]: ...

    def register_tools(self, tools: Mapping[str, Tool]) -> None: ...
    def add_post_edit_hooks(self, hooks: tuple[str, ...]) -> None: ...
    def refresh_system_prompt(self) -> None: ...

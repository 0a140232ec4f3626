"""What a slash command is, and the narrow part of the owner it is given: its spec plus
`run`, given the owner as an `Owner` and the argument as one string. Every face calls `run`
from the one registry and maps no names to methods of its own; True: accepted (the outcome
follows as events)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from msgspec import Struct

from rift.events import Warning

if TYPE_CHECKING:
    from rift.core.conversation.owner import Submitted, WhenBusy
    from rift.core.conversation.runtime import Agent
    from rift.models.attachments import Attachments

TUI, ACP = "tui", "acp"
EVERYWHERE = frozenset({TUI, ACP})


class Owner(Protocol):
    """The owner (core/conversation/owner.py) as a command sees it."""

    session_path: Path
    interrupted: bool

    @property
    def agent(self) -> Agent: ...
    @agent.setter
    def agent(self, agent: Agent) -> None: ...
    @property
    def busy(self) -> bool: ...

    def submit(
        self,
        text: str,
        attachments: Attachments | None = None,
        *,
        when_busy: WhenBusy = "refuse",
    ) -> Submitted: ...
    def work(
        self,
        body: Coroutine[Any, Any, object] | Callable[[], bool],
        kind: str,
        *,
        busy_text: str = ...,
    ) -> bool: ...
    def spawn(self, body: Coroutine[Any, Any, object]) -> None: ...
    def save(self) -> None: ...


Run = Callable[[Owner, str], bool]
"""A command's behaviour: the owner and the argument text → accepted."""


class Command(Struct, frozen=True):
    """One slash command: how every face describes it, and the function that runs it."""

    name: str
    args: str
    """The argument hint (`[n]`: optional, `<fact>`: required, "": none)."""
    help: str
    run: Run
    idle_only: bool = False
    """Refused while a turn runs (it changes the conversation or the model)."""
    needs_model: bool = True
    wire: str | None = None
    """The serve protocol command that carries it (`ready.commands`)."""
    faces: frozenset[str] = frozenset({TUI})


def terminal_only(name: str) -> Run:
    """The run of a command only the terminal UI can do (its clipboard, panes, pickers):
    elsewhere it says so."""

    def run(owner: Owner, argument: str) -> bool:
        del argument
        owner.agent.emit(Warning(f"/{name} is a terminal UI command", code="bad_command"))
        return False

    return run

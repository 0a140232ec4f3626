"""What the TUI's commands, event view and chat screen need from the app, as protocols.

The slash commands, `EventView` and `ChatScreen` used to name `RiftApp`, and the
app imports them: one import circle (type-only, but neither side could be read,
type-checked or moved without the other). They now name these protocols, which
`RiftApp` satisfies as it is (structurally; the launcher, `__init__.py`, has a
line that makes mypy prove it). So only the launcher imports app.py, and each
protocol is the whole list of what its users may touch.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from rich.text import Text
    from textual.screen import Screen, ScreenResultCallbackType
    from textual.widget import AwaitMount

    from rift.core import Conversation, Started
    from rift.events import PlanItem
    from rift.frontends.tui.driver import Driver
    from rift.frontends.tui.widgets.activity import ActivityPane
    from rift.frontends.tui.widgets.composer import CommandHint
    from rift.frontends.tui.widgets.status import StatusBar
    from rift.frontends.tui.widgets.transcript import Transcript

R = TypeVar("R")
"""A modal screen's result."""


class ScreenStack(Protocol):
    """The Textual `App` calls the commands and the view make: modals, clipboard, exit."""

    @property
    def screen_stack(self) -> list[Screen[Any]]: ...

    def push_screen(
        self, screen: Screen[R], callback: ScreenResultCallbackType[R] | None = None
    ) -> AwaitMount: ...
    def exit(self, result: int | None = None) -> None: ...
    def copy_to_clipboard(self, text: str) -> None: ...
    def suspend(self) -> AbstractContextManager[None]:
        """Lend the terminal to a foreground program (`/config edit`'s editor)."""
        ...


class CommandHost(ScreenStack, Protocol):
    """The app as the slash commands and `EventView` see it: widgets, driver, turn flow."""

    plan_items: list[PlanItem]
    """The latest plan the agent wrote (/plan shows it, /plan clear empties it)."""

    @property
    def driver(self) -> Driver: ...
    @property
    def transcript(self) -> Transcript: ...
    @property
    def activity(self) -> ActivityPane: ...
    @property
    def status_bar(self) -> StatusBar: ...

    def say(self, text: str | Text, kind: str = "command") -> None: ...
    def require_conversation(self) -> Conversation: ...
    async def after_bind(self, started: Started, *, fresh: bool) -> None: ...
    async def pick(self, question: str, choices: Sequence[str], current: int = 0) -> str | None: ...
    def send_prompt(self, text: str, shown: str | None = None) -> None: ...
    def restore_prompt(self) -> None: ...
    def set_phase(self, phase: str) -> None: ...
    def begin_answer(self, ask_id: int, question: str, prefix: str = "") -> None: ...
    def refresh_diff(self) -> None: ...
    def refresh_tasks(self) -> None: ...


class ChatHost(Protocol):
    """The app as its chat screen sees it: what the composer completes, and layout hooks."""

    @property
    def driver(self) -> Driver: ...

    def command_hints(self) -> Sequence[CommandHint]: ...
    def file_index(self) -> list[str]: ...
    def pasted(self, text: str) -> str | None: ...
    def replay_early_keys(self) -> None: ...
    def fit_activity(self, width: int) -> None: ...

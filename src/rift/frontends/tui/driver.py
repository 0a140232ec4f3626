"""The TUI's adapter to the core: owns the agent, its turn task, and rebinding.

It plays the part `ServeLoop` plays for `--serve`: front-end input becomes
`Agent` method calls, and everything the core reports comes back as events
through `emit`. A turn is one asyncio task and cancelling it is the cancel.
Changing the host, context size or temperature re-opens the same session
file on a new agent (`start_agent(resume=…)`), so the conversation carries
over without the front end touching core state.

The core is imported inside `connect`, not at module level, so the first
frame is painted before httpx and the model code load (bench/tui_startup.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rift.config import Config
from rift.errors import ModelError

if TYPE_CHECKING:
    from rift.core.agent import Agent
    from rift.core.conversation import Conversation
    from rift.core.events import Event, TurnStats
    from rift.core.startup import Started


@dataclass
class Totals:
    """Session totals for /stats, summed from `done` events."""

    turns: int = 0
    prompt_tokens: int = 0
    output_tokens: int = 0
    tools: int = 0
    tool_failures: int = 0
    seconds: float = 0.0

    def add_turn(self, stats: TurnStats) -> None:
        self.turns += 1
        self.prompt_tokens += stats.prompt_tokens
        self.output_tokens += stats.output_tokens
        self.seconds += stats.duration_ms / 1000

    @property
    def rate(self) -> float:
        return self.output_tokens / self.seconds if self.seconds > 0 else 0.0


class Driver:
    """One conversation's core side, as seen from the TUI."""

    def __init__(
        self,
        config: Config,
        emit: Callable[[Event], None],
        *,
        continue_last: bool = False,
        resume: Path | None = None,
    ) -> None:
        self.config = config
        self.emit = emit
        self.first_open = (continue_last, resume)
        """How to open the session on the first successful bind (--continue, --resume)."""
        self.agent: Agent | None = None
        self.conversation: Conversation | None = None
        """The owner of the turn lifecycle (core/conversation.py); None while offline."""
        self.offline: str | None = None
        """Why no model is bound (the startup error), or None when one is."""
        self.totals = Totals()

    @property
    def busy(self) -> bool:
        return self.conversation is not None and self.conversation.busy

    async def connect(self) -> Started | None:
        """Bind the configured model; None (and `offline` set) when that fails."""
        from rift.core.startup import StartOptions, start_agent  # late: see module docstring

        continue_last, resume = self.first_open
        options = StartOptions(continue_last=continue_last, resume=resume)
        try:
            started = await start_agent(self.config, self.emit, options)
        except ModelError as exc:
            self.offline = str(exc)
            return None
        self._adopt(started, approve=None)
        return started

    async def rebind(self, config: Config, resume: Path | None = None) -> Started:
        """Start a fresh agent on `config`, continuing the current session file.

        On failure the old agent (if any) stays in charge and the error is
        raised for the caller to show.
        """
        from rift.core.startup import StartOptions, start_agent

        old = self.agent
        continue_last, first = self.first_open
        options = StartOptions(
            continue_last=continue_last and resume is None, resume=resume or first
        )
        if old is not None:
            old.save()
            options = StartOptions(resume=resume or old.session_path)
        started = await start_agent(config, self.emit, options)
        approve = old.approval.enabled if old is not None else None
        if old is not None:
            await old.aclose()
        self.config = config
        self._adopt(started, approve=approve)
        return started

    def _adopt(self, started: Started, approve: bool | None) -> None:
        conversation = started.conversation
        conversation.edit_review = True  # the TUI reviews edits hunk by hunk
        if approve is not None:
            conversation.set_approval(approve)
        self.agent = started.agent
        self.conversation = conversation
        self.offline = None
        conversation.offer_trust()  # project plugins, hooks and MCP servers ask once

    def with_config(self, **changes: object) -> Config:
        return dataclasses.replace(self.config, **changes)  # type: ignore[arg-type]

    def start_turn(self, text: str) -> bool:
        """Submit a prompt (skills and @mentions are expanded by the owner)."""
        assert self.conversation is not None
        return self.conversation.submit(text)

    def cancel(self) -> bool:
        """Cancel the running turn; True when there was one."""
        return self.conversation is not None and self.conversation.cancel()

    async def close(self) -> None:
        """rift is exiting: the owner stops the turn, refuses pending asks, saves."""
        if self.conversation is not None:
            await self.conversation.close()

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

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rift.config import Config
from rift.errors import ModelError

if TYPE_CHECKING:
    from rift.core.agent import Agent
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
        self.offline: str | None = None
        """Why no model is bound (the startup error), or None when one is."""
        self.turn: asyncio.Task[object] | None = None
        self.totals = Totals()

    @property
    def busy(self) -> bool:
        running = self.turn is not None and not self.turn.done()
        return running or (self.agent is not None and self.agent.busy)

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
        except ValueError as exc:  # a malformed URL in a provider or role entry
            self.offline = f"invalid model server address: {exc}"
            return None
        self._adopt(started.agent, approve=None)
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
        self._adopt(started.agent, approve=approve)
        return started

    def _adopt(self, agent: Agent, approve: bool | None) -> None:
        agent.broker.edit_review = True  # the TUI reviews edits hunk by hunk
        if approve is not None:
            agent.set_approval(approve)
        self.agent = agent
        self.offline = None
        agent.offer_trust()  # project plugins, hooks and MCP servers ask once, as pickers

    def with_config(self, **changes: object) -> Config:
        return dataclasses.replace(self.config, **changes)  # type: ignore[arg-type]

    def start_turn(self, text: str) -> None:
        assert self.agent is not None
        self.turn = asyncio.create_task(self.agent.run_turn(text))

    async def wait(self) -> None:
        """Until the running turn, with its save and idle compaction, has ended."""
        if self.turn is not None:
            await asyncio.gather(self.turn, return_exceptions=True)

    def cancel(self) -> bool:
        """Cancel the running turn; True when there was one."""
        if self.turn is None or self.turn.done():
            return False
        self.turn.cancel()
        if self.agent is not None:
            self.agent.broker.close_reviews()
        return True

    async def close(self) -> None:
        """rift is exiting: stop the turn, refuse pending asks, save, close connections."""
        if self.turn is not None and not self.turn.done():
            self.turn.cancel()
        agent = self.agent
        if agent is None:
            return
        agent.broker.drop_all()
        if self.turn is not None:
            await asyncio.gather(self.turn, return_exceptions=True)
        agent.save()
        await agent.aclose()

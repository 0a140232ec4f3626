"""The TUI's adapter to the core: a thin layer over `Conversation`, as `ServeLoop` is for
`--serve`; the conversation owns the turn, the undo journal and the session file, as in
every other face. The core is imported inside `bind`, so the first frame is painted
before httpx and the model code load."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct, field
from msgspec.structs import replace

from rift.config.load import Config
from rift.errors import ModelError
from rift.frontends.tui.swarmboard import SwarmBoard

if TYPE_CHECKING:
    from rift.core import Conversation, Started, Submitted, TaskRegistry
    from rift.events import Event, TurnStats


TIMING_FIGURES = (
    "requests",
    "prefill_tokens",
    "prefill_ms",
    "decode_tokens",
    "decode_ms",
    "cached_tokens",
    "tool_ms",
)
"""TurnStats' additive figures of where a turn's time went (core/loop/timings.py)."""


class Totals(Struct, dict=True):
    """Session totals for /stats and /cost, summed from `done` events."""

    turns: int = 0
    prompt_tokens: int = 0
    billed_prompt_tokens: int = 0
    """Every call's prompt, as a provider bills a tool loop (`prompt_tokens` is the last's)."""
    output_tokens: int = 0
    tools: int = 0
    tool_failures: int = 0
    seconds: float = 0.0
    cost_usd: float = 0.0
    """Estimated, each turn priced at the model it ran on (models/pricing.py)."""
    prefill_tokens_per_sec: float = 0.0
    """The server's prompt-reading speed at its last `prefill_progress` (0: never said)."""
    timing: dict[str, int] = field(default_factory=dict)
    """Where the time went (TIMING_FIGURES)."""

    def add_turn(self, stats: TurnStats, cost_usd: float = 0.0) -> None:
        self.turns += 1
        self.prompt_tokens += stats.prompt_tokens
        self.billed_prompt_tokens += stats.billed_prompt_tokens
        self.output_tokens += stats.output_tokens
        self.seconds += stats.duration_ms / 1000
        self.cost_usd += cost_usd
        for name in TIMING_FIGURES:
            self.timing[name] = self.timing.get(name, 0) + int(getattr(stats, name, 0))

    def time_line(self) -> str:
        """One line of where the session's model and tool seconds went (/stats)."""
        get = self.timing.get
        return (
            f"time: prefill {get('prefill_tokens', 0)} tok in {get('prefill_ms', 0) / 1000:.1f} s"
            f" ({get('cached_tokens', 0)} cached) · decode {get('decode_tokens', 0)} tok in"
            f" {get('decode_ms', 0) / 1000:.1f} s · tools {get('tool_ms', 0) / 1000:.1f} s"
            f" · {get('requests', 0)} requests"
        )

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
        self._config = config
        self.emit = emit
        self.first_open = (continue_last, resume)
        """How to open the session on the first successful bind (--continue, --resume)."""
        self.conversation: Conversation | None = None
        """None while offline."""
        self.tasks: TaskRegistry | None = None
        """Background tasks (/tasks), which outlive turns and belong to the agent."""
        self.offline: str | None = None
        """Why no model is bound (the startup error), or None when one is."""
        self.totals = Totals()
        self.swarm = SwarmBoard()
        self.staged: list[str] = []
        """Images `/paste` staged (data URLs) for the next prompt that starts a turn."""

    @property
    def config(self) -> Config:
        """The settings in force: the conversation's once one is bound."""
        return self.conversation.state.config if self.conversation is not None else self._config

    @property
    def busy(self) -> bool:
        return self.conversation is not None and self.conversation.busy

    def with_config(self, **changes: object) -> Config:
        return replace(self.config, **changes)

    async def connect(self) -> Started | None:
        """The first bind; None (and `offline` set) when it fails."""
        try:
            return await self.bind(self._config)
        except (ModelError, ValueError) as exc:  # ValueError: a malformed provider URL
            self.offline = str(exc)
            return None

    async def bind(self, config: Config, *, resume: Path | None = None) -> Started:
        """Start a conversation on `config` (a new or a saved session) and adopt it; on
        failure the current one (if any) stays in charge and the error is raised."""
        from rift.core import (  # late: see module docstring
            StartOptions,
            offer_trust,
            set_edit_review,
            set_mode,
            start_agent,
        )

        old = self.conversation
        continue_last = False
        if old is None and resume is None:  # still the first bind (after an offline start)
            continue_last, resume = self.first_open
        options = StartOptions(continue_last=continue_last, resume=resume)
        started = await start_agent(config, self.emit, options)
        conversation = started.conversation
        set_edit_review(conversation, True)  # the TUI reviews edits hunk by hunk
        conversation.auto_continue = config.auto_continue
        if old is not None:
            set_mode(conversation, old.state.mode, announce=False)
            conversation.auto_continue = old.auto_continue
            await old.close()
        self._config = config
        self.conversation = conversation
        self.tasks = started.agent.tasks
        self.offline = None
        offer_trust(conversation)  # project plugins, hooks and MCP servers ask once
        return started

    def start_turn(self, text: str) -> Submitted | None:
        """Submit a prompt with the images `/paste` staged; None when refused (the images
        then wait for the next one)."""
        assert self.conversation is not None
        attachments = None
        if self.staged:
            from rift.models.attachments import Attachments

            attachments = Attachments(images=tuple(self.staged))
        submitted = self.conversation.submit(text, attachments, when_busy="queue")
        if not submitted:
            return None
        self.staged.clear()
        return submitted

    async def wait(self) -> object:
        """Until the current work (turn, switch, compaction, option change) has ended."""
        if self.conversation is None:
            return None
        return await self.conversation.wait()

    def cancel(self) -> bool:
        """Cancel the running work; True when there was some."""
        return self.conversation is not None and self.conversation.cancel()

    async def close(self) -> None:
        """rift is exiting: the owner stops the turn, refuses pending asks, saves."""
        if self.conversation is not None:
            await self.conversation.close()

"""Bringing an agent up: bind the model, open or resume the session.

Shared by every front end so `rift -p`, `rift --serve` and the TUI resume and
preflight identically. Notices met on the way (a corrupt session file, a
clamped context) are returned rather than emitted, because each front end
decides when they may be shown (serve must write `ready` first).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rift.config import Config
from rift.core.agent import Agent, bind_model
from rift.core.events import Event, Info, Warning
from rift.core.session import SessionStore, load_session
from rift.extend.skills import discover_skills


@dataclass(frozen=True, slots=True)
class StartOptions:
    """How the front end wants the session opened."""

    attached: bool = True
    """A person can answer asks (serve, TUI); False for headless runs."""
    continue_last: bool = False
    resume: Path | None = None


@dataclass
class Started:
    agent: Agent
    resumed: bool
    notices: list[Event] = field(default_factory=list)


async def start_agent(
    config: Config, emit: Callable[[Event], None], options: StartOptions
) -> Started:
    """Preflight the configured model and open the session; raises ModelError on failure."""
    binding = await bind_model(config.model, config)
    notices: list[Event] = [Warning(w) for w in config.warnings]
    if binding.info.note:
        notices.append(Info(binding.info.note))
    store = SessionStore(config.paths.sessions_dir)
    path = options.resume
    if path is None and options.continue_last:
        path = store.newest()
    messages = []
    resumed = False
    if path is not None:
        loaded = load_session(path)
        messages = loaded.messages
        resumed = bool(messages)
        if loaded.notice:
            notices.append(Info(loaded.notice))
        if loaded.warning:
            notices.append(Warning(loaded.warning))
    else:
        path = store.reserve()
    approve = config.permissions.approve
    skills = discover_skills(config.cwd, config.paths.config_dir)
    agent = Agent(
        config=config,
        binding=binding,
        emit=emit,
        session_path=path,
        messages=messages,
        attached=options.attached,
        skills=skills,
    )
    agent.approval.enabled = True if approve is None else approve
    return Started(agent=agent, resumed=resumed, notices=notices)

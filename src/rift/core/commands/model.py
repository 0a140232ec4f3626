"""The model and how it is asked: /model, /host, /ctx, /temp, /think, /roles, /restart,
/tokens. A switch re-runs the model's preflight as the conversation's work; the
messages and the undo journal carry over."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Literal

from msgspec.structs import replace

from rift.core.commands.base import Owner
from rift.core.conversation.refusal import Refusal
from rift.events import Info, Warning

if TYPE_CHECKING:
    from rift.config.load import Config
    from rift.core.conversation.runtime import ModelBinding

SWITCH_BUSY = "turn in progress — cancel it or wait before switching models"


def set_model(owner: Owner, name: str) -> Literal[True] | Refusal:
    """Start a live model switch (its work ends True or with the failure's refusal);
    a refusal (and a warning) when busy or unnamed."""
    name = name.strip()
    if not name:
        owner.agent.emit(Warning("set_model needs a 'model' field"))
        return Refusal("empty", "set_model needs a 'model' field")
    if not owner.work(_switch(owner, name), "model switch", busy_text=SWITCH_BUSY):
        return Refusal("busy", SWITCH_BUSY)
    return True


def set_option(
    owner: Owner,
    *,
    temperature: float | None = None,
    num_ctx: int | None = None,
    host: str | None = None,
) -> bool:
    """Change sampling, context size or host on the same conversation (messages and undo
    journal carry over); a host or context change re-runs the preflight, acked as set_model."""
    changes: dict[str, object] = {}
    if temperature is not None:
        changes["temperature"] = temperature
    if num_ctx is not None:
        changes.update(num_ctx=num_ctx, num_ctx_explicit=True)
    if host is not None:
        changes.update(host=host, host_explicit=True)
    if not changes:
        return False
    agent = owner.agent
    config = replace(agent.config, **changes)
    if num_ctx is None and host is None:

        def set_temperature() -> bool:
            agent.config = config
            agent.emit(Info(f"temperature set to {temperature}"))
            return True

        return owner.work(set_temperature, "option change")
    return owner.work(_rebind(owner, config), "option change")


async def _switch(owner: Owner, name: str) -> Literal[True] | Refusal:
    try:
        old = await owner.agent.set_model(name)
    except asyncio.CancelledError:
        owner.agent.emit(Warning("model switch cancelled"))
        raise
    return _replaced(owner, old)


async def _rebind(owner: Owner, config: Config) -> Literal[True] | Refusal:
    agent = owner.agent
    kept = agent.config
    agent.config = config
    old = await agent.set_model(agent.model)
    if isinstance(old, Refusal):
        agent.config = kept  # the switch failed: keep what worked
    return _replaced(owner, old)


def _replaced(owner: Owner, old: ModelBinding | Refusal) -> Literal[True] | Refusal:
    """A switch ended; the replaced provider's connections close on the side."""
    if isinstance(old, Refusal):
        return old
    owner.spawn(old.provider.aclose())
    owner.spawn(owner.agent.check_server(old.route))  # beside the conversation, brief
    return True


def _model(owner: Owner, argument: str) -> bool:
    return bool(set_model(owner, argument))


def _host(owner: Owner, argument: str) -> bool:
    if not argument.strip():
        owner.agent.emit(Info(f"host: {owner.agent.config.host}"))
        return True
    return set_option(owner, host=argument.strip())


def _ctx(owner: Owner, argument: str) -> bool:
    if not argument.strip().isdigit():
        owner.agent.emit(Warning("usage: /ctx <n> (a number of tokens)", code="bad_command"))
        return False
    return set_option(owner, num_ctx=int(argument))


def _temp(owner: Owner, argument: str) -> bool:
    try:
        value = float(argument)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 2.0:
        owner.agent.emit(Warning("usage: /temp <0.0-2.0>", code="bad_command"))
        return False
    return set_option(owner, temperature=value)


def set_thinking(owner: Owner, arg: str) -> str:
    """`/think on|off|auto|<level>` for the next requests; returns the line to show.
    ValueError for an unknown word, or thinking asked of a model that cannot."""
    return owner.agent.set_thinking(arg)


def _think(owner: Owner, argument: str) -> bool:
    try:
        line = set_thinking(owner, argument)
    except ValueError as exc:
        owner.agent.emit(Warning(str(exc)))
        return False
    owner.agent.emit(Info(line))
    return True


def tokens(owner: Owner, _argument: str = "") -> bool:
    """The context gauge now (`context`)."""
    owner.agent.emit(owner.agent.context_gauge())
    return True


def roles(owner: Owner, argument: str) -> bool:
    """`/roles [ROLE MODEL]` (core/conversation/roles.py)."""
    from rift.core.conversation.roles import roles_command

    return roles_command(owner.agent, argument, owner.spawn, lambda n: set_model(owner, n))


def restart(owner: Owner, _argument: str = "") -> bool:
    """`/restart` (restart.py): extensions and settings anew, as work; conversation kept."""
    from rift.core.conversation.restart import rebuild  # on first use

    async def run() -> None:
        owner.save()
        owner.agent = await rebuild(owner.agent) or owner.agent

    return owner.work(run(), "restart")

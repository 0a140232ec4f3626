"""`/roles`: the models rift is configured to use (main, the config's `models` map, personas
with a model of their own), where each lives and whether its server serves it; `/roles
ROLE NAME` points a role at another model for this session. Each server is asked once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from rift.errors import ModelError
from rift.events import Info, Warning

if TYPE_CHECKING:
    from rift.core.conversation.runtime import Agent
    from rift.models.registry import Route

MAIN = "main"
_SHOWN_MODELS = 6


def role_table(agent: Agent) -> list[tuple[str, str]]:
    """(role, model name) pairs: main, the config's roles, then personas with a model."""
    rows = [(MAIN, agent.model)]
    rows += sorted(agent.config.models.items())
    personas = agent.subagents.personas
    rows += [(f"persona {p.name}", p.model) for p in personas.values() if p.model]
    return rows


async def _served(route: Route, agent: Agent) -> list[str] | None:
    """The model list of the route's server; None when it cannot be reached."""
    from rift.models.registry import PROBE_TIMEOUT_S, make_provider

    try:
        provider = make_provider(route, PROBE_TIMEOUT_S, cache_dir=agent.config.paths.cache_dir)
    except ModelError:
        return None
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S):
            return await provider.list_models()
    except (ModelError, TimeoutError):
        return None
    finally:
        await provider.aclose()


async def _check(agent: Agent) -> str:
    """One line per role: name, model, host, and what its server said."""
    from rift.models.registry import EMBEDDED, resolve

    lists: dict[str, list[str] | None] = {}
    lines = []
    for role, configured in role_table(agent):
        name = agent.config.models.get(configured, configured)  # a persona may name a role
        try:
            route = resolve(name, agent.config)
        except ModelError as exc:
            lines.append(f"  {role}: {name} — not usable: {exc}")
            continue
        if route.provider_kind == EMBEDDED:
            lines.append(f"  {role}: {name} (in-process) — embedded, nothing to ask")
            continue
        if route.base_url not in lists:
            lists[route.base_url] = await _served(route, agent)
        found = lists[route.base_url]
        if found is None:
            state = "unreachable"
        elif route.wire_model in found:
            state = "served"
        else:
            listed = ", ".join(found[:_SHOWN_MODELS]) + (" …" if len(found) > _SHOWN_MODELS else "")
            state = f"not served (the server has: {listed or 'nothing'})"
        lines.append(f"  {role}: {name} at {route.base_url} — {state}")
    return "model roles:\n" + "\n".join(lines)


def roles_command(
    agent: Agent,
    argument: str,
    spawn: Callable[[Coroutine[Any, Any, object]], None],
    switch: Callable[[str], object],
) -> bool:
    """`/roles` lists and checks (the answer follows as `info`); `/roles ROLE NAME` sets
    one: `main` switches the conversation's model (`switch`), any other role points at
    NAME for this session (the config file is left alone)."""
    words = argument.split()
    if not words:

        async def report() -> None:
            agent.emit(Info(await _check(agent)))

        spawn(report())
        return True
    if len(words) != 2:
        agent.emit(Warning("usage: /roles [ROLE MODEL] (no argument lists the roles)"))
        return False
    role, name = words
    if role == MAIN:
        return bool(switch(name))
    known = dict(agent.config.models)
    previous = known.get(role)
    known[role] = name
    agent.config = replace(agent.config, models=known)
    agent.subagents.config = agent.config  # sub-agents resolve roles through their copy
    agent.refresh_system_prompt()  # the prompt lists the roles
    was = f" (was {previous})" if previous else " (a new role)"
    agent.emit(Info(f"role {role} now uses {name}{was}, for this session"))
    return True

"""`/restart`: the session's extensions and settings anew, the conversation kept.

MCP servers, plugins and skills start once per agent, so `/config reload` cannot apply
them; this rebuilds the agent around the same conversation from the re-read config (the
model, host, context and temperature in force stay). Messages, session file, undo
journal, approval, this session's grants and the model binding carry over.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rift.events import Info, Warning

if TYPE_CHECKING:
    from rift.core.conversation.runtime import Agent


async def rebuild(old: Agent) -> Agent | None:
    """A new agent on the same conversation, or None (and a warning) when the config
    files cannot be read: the running agent then stays as it was."""
    from rift.config.load import keep_running_model, load_config
    from rift.core.conversation.confine import confine_agent, extensions_and_skills
    from rift.core.conversation.runtime import Agent

    running = old.config
    try:
        fresh = load_config(os.environ, running.cwd)
    except Exception as exc:  # a broken file: say so, keep what runs
        old.emit(Warning(f"restart failed, nothing was stopped: {exc}"))
        return None
    config = keep_running_model(fresh, running)
    on_finished = old.tasks.on_finished
    await old.tasks.shutdown()
    await old.lsp.aclose()
    if old.extensions is not None:
        await old.extensions.aclose()
    extensions, skills = extensions_and_skills(config)
    agent = Agent(
        config=config,
        binding=old.binding,
        emit=old.emit,
        messages=old.messages,
        attached=old.attached,
        approval=old.approval,
        journal=old.journal,
        meter=old.meter,
        skills=skills,
        extensions=extensions,
        slot=old.slot,
    )
    agent.gate.rules = agent.gate.rules.with_session_of(old.gate.rules)
    notices = confine_agent(agent, config, contained=False)
    extensions.attach(agent, attached=old.attached)
    agent.tasks.on_finished = on_finished
    for event in [*(Warning(w) for w in config.warnings), *notices, *extensions.notices]:
        agent.emit(event)
    agent.emit(
        Info(
            f"restarted: {len(config.mcp)} MCP server(s), {len(agent.skills)} skill(s) and"
            " plugins from the current config; the conversation continues"
        )
    )
    agent.emit(agent.context_gauge())
    return agent

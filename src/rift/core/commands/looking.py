"""Looking without changing anything: /system, /tools, /mcp, /lsp, /skills, /plan.
None of them starts work, so none needs the busy rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rift.core.commands.base import Owner
from rift.events import Info, Warning


def show_system_prompt(owner: Owner, _argument: str = "") -> bool:
    """The system prompt the model gets now."""
    messages = owner.agent.messages
    text = messages[0].get("content", "") if messages else ""
    owner.agent.emit(Info(f"system prompt ({len(text)} characters):\n{text}"))
    return True


def show_tools(owner: Owner, _argument: str = "") -> bool:
    """The tools the model may call, with the first line of each description."""
    lines = [
        f"  {name}: {tool.description.strip().splitlines()[0] if tool.description else ''}"
        for name, tool in sorted(owner.agent.tools.items())
    ]
    owner.agent.emit(Info(f"{len(lines)} tools:\n" + "\n".join(lines)))
    return True


def show_mcp(owner: Owner, _argument: str = "") -> bool:
    """The MCP servers configured, each one's state and tools (`/mcp`)."""
    agent = owner.agent
    configured = agent.config.mcp
    manager = agent.extensions.mcp if agent.extensions is not None else None
    connections = manager.connections if manager is not None else {}
    if not configured:
        agent.emit(Info('no MCP servers configured ("mcp" in the config, or .mcp.json)'))
        return True
    lines = []
    for name, server in sorted(configured.items()):
        conn = connections.get(name)
        if conn is None:
            state = "not started (a project server waits for trust)" if server.project else "off"
        elif conn.error:
            state = f"failed: {conn.error}"
        else:
            state = "connected" if conn.session is not None else "starting"
        tools = ", ".join(sorted(conn.tools)) if conn is not None and conn.tools else ""
        lines.append(f"  {name}: {state}" + (f"; tools: {tools}" if tools else ""))
    agent.emit(Info("MCP servers:\n" + "\n".join(lines)))
    return True


def show_lsp(owner: Owner, _argument: str = "") -> bool:
    """The language servers running and the last diagnostics each file got (`/lsp`)."""
    agent = owner.agent
    service = agent.ctx.services.diagnostics
    status: dict[str, str] = getattr(service, "status", dict)()
    last: dict[Path, list[Any]] = getattr(service, "_last", {})
    if not status:
        agent.emit(Info("no language server running (one starts after an edit it can check)"))
        return True
    lines = [f"  {language}: {argv}" for language, argv in sorted(status.items())]
    lines += [f"  {path.name}: {len(found)} diagnostic(s)" for path, found in last.items()]
    agent.emit(Info("language servers:\n" + "\n".join(lines)))
    return True


def show_skills(owner: Owner, _argument: str = "") -> bool:
    skills = owner.agent.skills
    lines = [f"  /skill:{s.name}  {s.description}" for s in skills.values()]
    owner.agent.emit(Info("skills:\n" + "\n".join(lines) if lines else "no skills found"))
    return True


def clear_plan(owner: Owner) -> None:
    """Forget the agent's plan checklist (the TUI's `/plan clear`)."""
    owner.agent.ctx.plan.items.clear()


def plan(owner: Owner, argument: str = "") -> bool:
    if argument.strip() == "clear":
        clear_plan(owner)
        owner.agent.emit(Info("plan cleared"))
        return True
    if argument.strip():
        owner.agent.emit(Warning("usage: /plan [clear]", code="bad_command"))
        return False
    items = owner.agent.ctx.plan.items
    lines = [f"{'☑' if item.done else '☐'} {n}. {item.text}" for n, item in enumerate(items, 1)]
    owner.agent.emit(Info("plan:\n" + "\n".join(lines) if lines else "no plan yet"))
    return True

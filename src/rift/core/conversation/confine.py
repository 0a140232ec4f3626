"""The limits every agent starts under (its children's environment, the sandbox, the
writable roots) and what it loads past the Read rules, shared by startup.py and restart.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rift.config.load import Config
from rift.core.permissions.rules import read_allowed
from rift.events import Event, Warning
from rift.extend.loader import Extensions
from rift.extend.skills import Skill, discover_skills
from rift.fs import child_env
from rift.lsp.client import LspService
from rift.tools.sandbox import choose_sandbox

if TYPE_CHECKING:
    from rift.core.conversation.runtime import Agent


def confine_agent(agent: Agent, config: Config, *, contained: bool) -> list[Event]:
    """The limits every child and every write meets: no API keys in children's
    environments, the sandbox, the writable roots, undo held to the same limits, language
    servers in the sandbox. The notices it met (an unusable sandbox)."""
    perms = config.permissions
    keys = [*config.builtin_keys.values(), *(p.api_key for p in config.providers.values())]
    child_env.configure(keys, pass_keys=perms.pass_api_keys)  # rift/fs/child_env.py
    own_dirs = (config.paths.config_dir, config.paths.data_dir)
    agent.ctx.sandbox, problem = choose_sandbox(
        perms.sandbox,
        network=perms.sandbox_network,
        project=config.cwd,
        has_wrapper=bool(perms.bash_wrapper),
        protected=own_dirs,
        home=config.paths.home,
    )
    agent.gate.confine(
        own_dirs,
        sandboxed=agent.ctx.sandbox is not None,
        added=perms.additional_directories,
        contained=contained,
    )
    agent.journal.guard = agent.gate.restore_limits  # undo meets a write's fixed limits
    lsp = agent.ctx.services.diagnostics  # lsp/client.py: language servers run project code
    if isinstance(lsp, LspService):
        lsp.sandbox = agent.ctx.sandbox
    return [Warning(problem)] if problem else []


def extensions_and_skills(config: Config) -> tuple[Extensions, dict[str, Skill]]:
    """The plugins, personas, hooks and MCP servers, and every skill (theirs and those
    discovered), by name: all read only where the Read rules allow."""
    readable = read_allowed(config.permissions, cwd=config.cwd, home=config.paths.home)
    extensions = Extensions.load(config, readable)
    found = discover_skills(config.cwd, config.paths.config_dir, readable)
    return extensions, dict(sorted({**extensions.skills, **found}.items()))

"""What the user and the project bring to an agent, and the trust asks for the project's part.

The user's own plugins, personas, hooks and MCP servers are activated at once. A cloned
repository's plugins, post-edit hooks and MCP servers run only after the user trusted them
once in this project (config/trust.py), because a cloned repository must not run code
unasked. Interactive front ends call `Agent.offer_trust()`, which raises one `ask` per
untrusted item without blocking turns (a trusted item's tools are registered live); with
approval off nothing is asked, and headless runs use only what is already trusted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from rift.config.load import Config, McpServerConfig
from rift.config.trust import TrustStore, hook_trust_key, mcp_trust_key
from rift.events import Event, Info, Warning
from rift.extend.host import ExtensionHost
from rift.extend.personas import discover_personas
from rift.extend.plugins import Plugin, command_skills, discover_plugins, plugin_tools
from rift.extend.skills import Skill
from rift.text.hygiene import visible
from rift.tools.base import Tool
from rift.tools.delegation import Persona

if TYPE_CHECKING:
    from rift.extend.mcp import McpManager

TRUST_CHOICES = ["trust", "skip"]
_YES = ("trust", "yes", "y")


def accepted(answer: str | None) -> bool:
    """`trust`, `yes` or `y`, trimmed and in any case; anything else (or no answer) skips."""
    return answer is not None and answer.strip().lower() in _YES


class Extensions(Struct, dict=True):
    """Plugins, personas, project hooks and MCP servers of one agent, and their trust."""

    config: Config
    store: TrustStore
    plugins: dict[str, Plugin] = field(default_factory=dict)
    personas: dict[str, Persona] = field(default_factory=dict)
    notices: list[Event] = field(default_factory=list)
    """Problems met while loading (bad manifests, a corrupt trust store), shown after ready."""
    mcp: McpManager | None = None
    _agent: ExtensionHost | None = None
    _offered: bool = False
    _live: bool = False
    """False during startup: messages queue in `notices` (serve must write `ready` first)."""
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @classmethod
    def load(cls, config: Config, readable: Callable[[Path], bool]) -> Extensions:
        """Discover what the user and project bring; `readable` is the core's Read rules
        (personas are read into prompts, so a denied file stays unread)."""
        warnings: list[str] = []
        plugins = discover_plugins(config.cwd, config.paths.config_dir, warnings)
        store = TrustStore.load(config.paths)
        personas = discover_personas(config.cwd, config.paths.config_dir, readable)
        notices: list[Event] = [Warning(visible(t)) for t in [*warnings, *store.warnings]]
        return cls(config, store, plugins, personas, notices)

    @property
    def skills(self) -> dict[str, Skill]:
        """Plugin commands, offered as skills."""
        return command_skills(self.plugins.values())

    def _needs_trust(self, plugin: Plugin) -> bool:
        return (
            plugin.project
            and bool(plugin.tools or plugin.hooks)
            and plugin.trust_key not in self.store.hooks
        )

    def untrusted_plugins(self) -> list[Plugin]:
        return [p for p in self.plugins.values() if self._needs_trust(p)]

    def _hook_trusted(self, hook: str) -> bool:
        return hook_trust_key(self.config.cwd, hook) in self.store.hooks

    def _server_trusted(self, server: McpServerConfig) -> bool:
        return mcp_trust_key(self.config.cwd, server.identity) in self.store.mcp

    def untrusted_hooks(self) -> list[str]:
        hooks = dict.fromkeys(self.config.project_post_edit_hooks)
        return [h for h in hooks if not self._hook_trusted(h)]

    def untrusted_servers(self) -> list[McpServerConfig]:
        return [s for s in self.config.mcp.values() if s.project and not self._server_trusted(s)]

    def attach(self, agent: ExtensionHost, attached: bool) -> None:
        """Activate what needs no asking; call inside the event loop, before any turn."""
        self._agent = agent
        agent.subagents.personas = dict(self.personas)
        for plugin in self.plugins.values():
            if not self._needs_trust(plugin):
                self._activate(plugin)
        agent.add_post_edit_hooks(
            tuple(h for h in self.config.project_post_edit_hooks if self._hook_trusted(h))
        )
        if not attached:
            self._note_skipped()
        for server in self.config.mcp.values():
            if not server.project or self._server_trusted(server):
                self.start_mcp(server)
        agent.refresh_system_prompt()
        self._live = True

    def _note_skipped(self) -> None:
        hint = "(start rift interactively to review and trust them)"
        for n, what in (
            (len(self.untrusted_plugins()), "plugin"),
            (len(self.untrusted_hooks()), "post-edit hook"),
            (len(self.untrusted_servers()), "MCP server"),
        ):
            if n:
                plural = "" if n == 1 else "s"
                self.notices.append(Info(f"{n} untrusted project {what}{plural} skipped {hint}"))

    def _activate(self, plugin: Plugin) -> list[str]:
        """Register a plugin's tools and hooks; returns the tool names that were registered."""
        assert self._agent is not None
        registered = self._register(plugin_tools(plugin))
        self._agent.add_post_edit_hooks(plugin.hooks)
        return registered

    def _register(self, tools: Mapping[str, Tool]) -> list[str]:
        """Add tools live; a name already taken (built-ins first) keeps its owner."""
        agent = self._agent
        assert agent is not None
        fresh = {name: tool for name, tool in tools.items() if name not in agent.tools}
        for name in tools.keys() - fresh.keys():
            self._say(Warning(f"tool '{name}' skipped: the name is already taken"))
        if fresh:
            agent.register_tools(fresh)
        return list(fresh)

    def _info(self, text: str) -> None:
        self._say(Info(visible(text)))  # names and commands come from the repository

    def _say(self, event: Event) -> None:
        if self._live and self._agent is not None:
            self._agent.emit(event)
        else:
            self.notices.append(event)

    def offer_trust(self) -> None:
        """Raise the trust asks once (see the module docstring); returns without waiting."""
        agent = self._agent
        if self._offered or agent is None:
            return
        self._offered = True
        offers: list[tuple[str, Callable[[], Coroutine[Any, Any, None]]]] = []
        for plugin in self.untrusted_plugins():
            offers.append((f"plugin '{plugin.name}'", partial(self._offer_plugin, plugin)))
        for hook in self.untrusted_hooks():
            offers.append((f"post-edit hook `{hook}`", partial(self._offer_hook, hook)))
        for server in self.untrusted_servers():
            offers.append((f"MCP server '{server.name}'", partial(self._offer_server, server)))
        for label, offer in offers:
            if not agent.approval.enabled:
                self._info(
                    f"project {label} stays untrusted while auto-approve is on"
                    " (turn approval on and restart rift to be asked)"
                )
                continue
            task = asyncio.create_task(offer())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _persist(self, save: Callable[[str], None], entry: str) -> None:
        """Save an approval; when the store cannot be written it still holds for this run."""
        try:
            save(entry)
        except OSError as exc:
            self._say(Warning(visible(f"trust not saved (it holds for this session only): {exc}")))

    async def _ask(self, question: str, detail: list[str]) -> bool:
        assert self._agent is not None
        return accepted(await self._agent.broker.ask(question, detail, TRUST_CHOICES))

    async def _offer_plugin(self, plugin: Plugin) -> None:
        where = str(plugin.directory)
        if plugin.found_at is not None and plugin.found_at != plugin.directory:
            where = f"{plugin.found_at} -> {where}"  # a symlink: say where the code really is
        question = f"Trust project plugin '{plugin.name}' ({where})?"
        if not await self._ask(question, plugin.detail()):
            self._info(f"plugin '{plugin.name}' left untrusted: its tools and hooks stay off")
            return
        self._persist(self.store.trust_hook_entry, plugin.trust_key)
        names = self._activate(plugin)
        self._info(
            f"plugin '{plugin.name}' trusted — tools registered: {', '.join(names) or '(none)'}"
        )

    async def _offer_hook(self, hook: str) -> None:
        if not await self._ask(f"Trust project hook: {hook}?", [f"runs after every edit: {hook}"]):
            self._info(f"project hook left untrusted: {hook}")
            return
        assert self._agent is not None
        self._persist(self.store.trust_hook_entry, hook_trust_key(self.config.cwd, hook))
        self._agent.add_post_edit_hooks((hook,))
        self._info(f"project hook trusted: {hook}")

    async def _offer_server(self, server: McpServerConfig) -> None:
        if server.command:
            detail = ["command: " + " ".join([server.command, *server.args])]
        else:
            detail = [f"url: {server.url}"]
        detail += [f"env: {key}" for key, _ in server.env]
        if not await self._ask(f"Trust project MCP server '{server.name}'?", detail):
            self._info(f"MCP server '{server.name}' left untrusted: not started")
            return
        self._persist(self.store.trust_mcp, mcp_trust_key(self.config.cwd, server.identity))
        self.start_mcp(server)

    def start_mcp(self, server: McpServerConfig) -> None:
        """Start one MCP server (its tools arrive live). The manager is made with the
        first server: a project with none never loads the MCP code."""
        if self.mcp is None:
            from rift.extend.mcp import McpManager

            self.mcp = McpManager(self.config.cwd, self._info, self._register)
        self.mcp.start(server)

    async def wait_mcp(self) -> None:
        if self.mcp is not None:
            await self.mcp.wait_ready()

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.mcp is not None:
            await self.mcp.aclose()

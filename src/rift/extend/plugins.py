"""Plugins: a directory with a `plugin.json` that adds commands, tools and post-edit hooks.

Found under `.rift/plugins/*/` (the project's, winning name collisions) and
`~/.config/rift/plugins/*/`. A manifest::

    {"name": "deploy", "description": "…",
     "commands": [{"name": "ship", "description": "…", "prompt": "Deploy {args} now."}],
     "tools": [{"name": "status", "description": "…", "command": "./status.sh",
                "parameters": {"type": "object", …}, "timeout_secs": 60}],
     "hooks": {"post_edit": ["make lint"]}}

Commands are prompt templates exposed as skills, always available. Tools run through the
shell with their arguments as JSON on stdin. A project plugin's tools and hooks run only
once the user trusted it, keyed to its manifest and every file in its directory
(config/trust.py); a tool whose plugin changed on disk since then refuses to run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from msgspec import Struct

from rift.config.trust import plugin_trust_key
from rift.errors import ToolError
from rift.extend.skills import DESCRIPTION_CAP, Skill
from rift.text.patterns import lazy
from rift.tools._proc import run_shell, strip_ansi
from rift.tools.base import Tool, ToolContext, ToolOutput, ToolRun, first_text, middle_truncate

DEFAULT_TIMEOUT = 60.0
"""Seconds a plugin tool may run; a manifest's `timeout_secs` overrides it per tool."""
OUTPUT_LIMIT = 30_000
MAX_MANIFEST_BYTES = 1 << 20
_TOOL_NAME = lazy(r"^[A-Za-z0-9_-]{1,64}$")


class ManifestError(ValueError):
    """A plugin.json that cannot be used; the plugin is skipped with a warning."""


class PluginTool(Struct, frozen=True):
    name: str
    description: str
    command: str
    parameters: dict[str, Any]
    timeout: float = DEFAULT_TIMEOUT


class Plugin(Struct, frozen=True):
    name: str
    description: str
    manifest_path: Path
    project: bool
    """Brought by the project: tools and hooks need trust."""
    trust_key: str
    commands: tuple[Skill, ...] = ()
    tools: tuple[PluginTool, ...] = ()
    hooks: tuple[str, ...] = ()
    project_root: Path | None = None
    """The project it was found in (project plugins), for re-checking its key."""
    found_at: Path | None = None
    """Its directory as found under the project, symlinks unresolved."""

    def changed_on_disk(self) -> bool:
        """A project plugin whose manifest or files differ from what the key was made of."""
        if self.project_root is None or self.found_at is None:
            return False
        try:
            manifest = (self.found_at / "plugin.json").read_bytes()
        except OSError:
            return True
        return plugin_trust_key(self.project_root, self.found_at, manifest) != self.trust_key

    @property
    def directory(self) -> Path:
        return self.manifest_path.parent

    def detail(self) -> list[str]:
        """What trusting it lets run: one line per tool, then its hooks (the ask's detail)."""
        lines = [f"{t.name}: {t.description} — `{t.command}`" for t in self.tools]
        lines += [f"post-edit hook — `{hook}`" for hook in self.hooks]
        return lines


def _text(raw: dict[str, Any], key: str, where: str, required: bool = False) -> str:
    value = raw.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ManifestError(f"{where}: '{key}' must be a non-empty string")
    return value.strip()


def _command(raw: Any, plugin: str, where: str) -> Skill:
    if not isinstance(raw, dict):
        raise ManifestError(f"{where}: each command must be an object")
    name = _text(raw, "name", where, required=True)
    prompt = _text(raw, "prompt", f"{where} command '{name}'", required=True)
    description = _text(raw, "description", where) or f"(plugin {plugin})"
    return Skill(name=name, description=description[:DESCRIPTION_CAP], body=prompt, template=prompt)


def _tool(raw: Any, where: str) -> PluginTool:
    if not isinstance(raw, dict):
        raise ManifestError(f"{where}: each tool must be an object")
    name = _text(raw, "name", where, required=True)
    if not _TOOL_NAME().match(name):
        raise ManifestError(f"{where}: tool name '{name}' must match [A-Za-z0-9_-]{{1,64}}")
    here = f"{where} tool '{name}'"
    command = _text(raw, "command", here, required=True)
    parameters = raw.get("parameters")
    if parameters is None:
        parameters = {"type": "object", "properties": {}}
    if not isinstance(parameters, dict):
        raise ManifestError(f"{here}: 'parameters' must be a JSON Schema object")
    timeout = raw.get("timeout_secs", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise ManifestError(f"{here}: 'timeout_secs' must be a positive number")
    description = _text(raw, "description", here) or name
    return PluginTool(name, description, command, parameters, float(timeout))


def _list(data: dict[str, Any], key: str, where: str) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ManifestError(f"{where}: '{key}' must be a list")
    return value


def parse_manifest(
    raw: bytes,
    manifest_path: Path,
    project: bool,
    *,
    trust_key: str = "",
    project_root: Path | None = None,
    found_at: Path | None = None,
) -> Plugin:
    """A plugin from its manifest bytes (the trust fields come from `_scan`); ManifestError
    for invalid JSON or a field of the wrong shape."""
    where = f"plugin {manifest_path}"
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"{where} is not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ManifestError(f"{where} must hold a JSON object")
    name = _text(data, "name", where) or manifest_path.parent.name
    hooks = data.get("hooks") or {}
    if not isinstance(hooks, dict):
        raise ManifestError(f"{where}: 'hooks' must be an object")
    post_edit = _list(hooks, "post_edit", where)
    if not all(isinstance(h, str) and h.strip() for h in post_edit):
        raise ManifestError(f"{where}: 'hooks.post_edit' must be a list of commands")
    return Plugin(
        name=name,
        description=_text(data, "description", where),
        manifest_path=manifest_path,
        project=project,
        trust_key=trust_key,
        commands=tuple(_command(c, name, where) for c in _list(data, "commands", where)),
        tools=tuple(_tool(t, where) for t in _list(data, "tools", where)),
        hooks=tuple(h.strip() for h in post_edit),
        project_root=project_root,
        found_at=found_at,
    )


def _scan(directory: Path, project_root: Path | None, warnings: list[str]) -> Iterable[Plugin]:
    """Plugins under `directory`; `project_root` is set for a project's (they need trust)."""
    if not directory.is_dir():
        return
    for entry in sorted(directory.iterdir()):
        manifest = entry / "plugin.json"
        if not manifest.is_file():
            continue
        try:
            with manifest.open("rb") as handle:
                raw = handle.read(MAX_MANIFEST_BYTES + 1)
            if len(raw) > MAX_MANIFEST_BYTES:
                raise ManifestError(f"plugin {manifest} is larger than {MAX_MANIFEST_BYTES} bytes")
            key = "" if project_root is None else plugin_trust_key(project_root, entry, raw)
            yield parse_manifest(
                raw,
                manifest.resolve(),
                project_root is not None,
                trust_key=key,
                project_root=project_root,
                found_at=entry if project_root is not None else None,
            )
        except ManifestError as exc:
            warnings.append(f"{exc}; skipping it")
        except OSError as exc:
            warnings.append(f"plugin {manifest} cannot be read ({exc}); skipping it")


def discover_plugins(
    project_dir: Path, user_config_dir: Path, warnings: list[str]
) -> dict[str, Plugin]:
    """Every usable plugin by name; the project's win collisions. Problems go to `warnings`."""
    found: dict[str, Plugin] = {}
    for plugin in _scan(project_dir / ".rift" / "plugins", project_dir, warnings):
        found.setdefault(plugin.name, plugin)
    for plugin in _scan(user_config_dir / "plugins", None, warnings):
        found.setdefault(plugin.name, plugin)
    return found


def _runner(spec: PluginTool, plugin: Plugin) -> ToolRun:
    async def run(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        if plugin.changed_on_disk():  # e.g. the model rewrote tool.sh after trust was given
            raise ToolError(
                f"plugin '{plugin.name}' changed on disk since it was trusted; it stays off"
                " until rift is restarted and the user trusts it again"
            )
        payload = json.dumps(args, ensure_ascii=False).encode("utf-8")
        # Inside the sandbox when it is on: the tool is code the model can call at will.
        command = spec.command if ctx.sandbox is None else ctx.sandbox.wrap(spec.command, ctx.cwd)
        try:
            result = await run_shell(command, ctx.cwd, spec.timeout, stdin_data=payload)
        except OSError as exc:
            raise ToolError(f"plugin tool '{spec.name}' could not start: {exc}") from exc
        stdout = strip_ansi(result.stdout).strip("\n")
        if result.timed_out:
            raise ToolError(f"plugin tool '{spec.name}' timed out after {spec.timeout:g}s")
        if result.exit_code != 0:
            reason = strip_ansi(result.stderr).strip() or stdout.strip() or "(no output)"
            raise ToolError(
                f"plugin tool '{spec.name}' failed (exit {result.exit_code}): "
                + middle_truncate(reason, OUTPUT_LIMIT)
            )
        return ToolOutput(True, middle_truncate(stdout, OUTPUT_LIMIT) if stdout else "(no output)")

    return run


def plugin_tools(plugin: Plugin) -> dict[str, Tool]:
    """The plugin's tools in the contract every tool follows (tools/base.py)."""
    return {
        spec.name: Tool(
            name=spec.name,
            description=f"{spec.description} (plugin: {plugin.name})",
            parameters=spec.parameters,
            run=_runner(spec, plugin),
            kind="other",  # a manifest declares no kind
            summary=first_text,
            plan_safe=False,  # a shell command: rift cannot tell what it changes
        )
        for spec in plugin.tools
    }


def command_skills(plugins: Iterable[Plugin]) -> dict[str, Skill]:
    """Every plugin command as a skill (first plugin wins a name clash)."""
    found: dict[str, Skill] = {}
    for plugin in plugins:
        for command in plugin.commands:
            found.setdefault(command.name, command)
    return found

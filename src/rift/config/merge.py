"""Merging the config layers: the user file, the project file (tighten-only), .mcp.json.

`Merger` reads each layer's JSON into plain values and warnings; the project's
host and providers apply only once trusted (`project_servers`). `load.py`
turns the result, with the environment and the flags, into one `Config`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from msgspec.structs import replace

from rift.config.records import (
    BUILTIN_KEY_ENV,
    BUILTIN_PRICING,
    DEFAULT_READ_TIMEOUT,
    LspConfig,
    McpServerConfig,
    PoolHost,
    Price,
    ProviderConfig,
)
from rift.config.trust import project_key


def read_json_file(path: Path, warnings: list[str]) -> dict[str, Any]:
    """A config file as a dict; a missing file is empty, a broken one is a warning."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        warnings.append(f"config: cannot read {path}: {exc.strerror or exc}")
        return {}
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        warnings.append(
            f"config: {path} is not valid JSON (line {exc.lineno}, column {exc.colno}:"
            f" {exc.msg}); ignoring that file"
        )
        return {}
    if not isinstance(data, dict):
        warnings.append(f"config: {path} must hold a JSON object; ignoring that file")
        return {}
    return data


def _str_list(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def normalize_base_url(url: str) -> str:
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    return url


def _pool_hosts(
    raw: Any, where: str, env: Mapping[str, str], warnings: list[str]
) -> list[PoolHost]:
    """The user's `hosts` list; a malformed entry is one warning and left out."""
    if not isinstance(raw, list):
        warnings.append(f"{where}: ignoring 'hosts' (expected a list of {{url, model}} objects)")
        return []
    hosts: list[PoolHost] = []
    for index, entry in enumerate(raw):
        entry = entry if isinstance(entry, dict) else {}
        url, model, weight = entry.get("url"), entry.get("model"), entry.get("weight", 1)
        ok_weight = isinstance(weight, int | float) and not isinstance(weight, bool) and weight > 0
        if not (isinstance(url, str) and url.strip() and isinstance(model, str) and ok_weight):
            warnings.append(
                f'{where}: ignoring hosts[{index}] (it needs "url" and "model" strings'
                ' and a positive "weight")'
            )
            continue
        key_env = entry.get("api_key_env")
        key = env.get(key_env, "").strip() or None if isinstance(key_env, str) else None
        slots = entry.get("slots")
        if not (isinstance(slots, int) and not isinstance(slots, bool) and slots > 0):
            slots = None
        hosts.append(PoolHost(url.strip().rstrip("/"), model, float(weight), key, slots))
    return hosts


def _provider(name: str, raw: Any, env: Mapping[str, str]) -> ProviderConfig | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("base_url"), str):
        return None
    base = normalize_base_url(raw["base_url"])
    if not base.endswith("/v1"):
        base += "/v1"
    key = raw.get("api_key") if isinstance(raw.get("api_key"), str) else None
    key_env = raw.get("api_key_env")
    if not key and isinstance(key_env, str):
        key = env.get(key_env) or None
    kind = str(raw["kind"]) if isinstance(raw.get("kind"), str) else "openai"
    default_env = BUILTIN_KEY_ENV.get(name) or (
        BUILTIN_KEY_ENV["anthropic"] if kind == "anthropic" else None
    )
    if not key and default_env:
        # `openai`/`anthropic` redefined (or any Anthropic provider): the usual variable.
        # A project's providers lose every key afterwards (`Merger.project`).
        key = env.get(default_env, "").strip() or None
    return ProviderConfig(name=name, base_url=base, kind=kind, api_key=key)


def _prices(raw: Any, where: str, warnings: list[str]) -> dict[str, Price]:
    """`pricing: {substring: {input, output}}`; a malformed entry is one warning."""
    prices: dict[str, Price] = {}
    for name, entry in _dict(raw).items():
        values = _dict(entry)
        rates = [values.get("input"), values.get("output")]
        if not all(isinstance(r, int | float) and not isinstance(r, bool) for r in rates):
            warnings.append(
                f"{where}: ignoring pricing '{name}' (it needs numeric 'input' and 'output',"
                " USD per million tokens)"
            )
            continue
        prices[str(name)] = Price(float(values["input"]), float(values["output"]))
    return prices


def _malformed_rules(rules: list[str], where: str, warnings: list[str]) -> None:
    """One warning per rule that the permission engine cannot read (it would be ignored)."""
    from rift.config.rule_syntax import parse_rule  # pulled in only when a config is loaded

    for rule in rules:
        if parse_rule(rule) is None:
            warnings.append(f"{where}: ignoring malformed permission rule '{rule}'")


def _mcp(name: str, raw: Any, project: bool) -> McpServerConfig | None:
    if not isinstance(raw, dict):
        return None
    command = raw.get("command") if isinstance(raw.get("command"), str) else None
    url = raw.get("url") if isinstance(raw.get("url"), str) else None
    if not command and not url:
        return None
    env, headers = (
        tuple(sorted((str(k), str(v)) for k, v in _dict(raw.get(key)).items()))
        for key in ("env", "headers")
    )
    args = tuple(_str_list(raw.get("args")))
    return McpServerConfig(name, command, args, env, url, headers, project)


class Merger:
    """Accumulates settings layer by layer, remembering which keys were set."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self.values: dict[str, Any] = {}
        self.models: dict[str, str] = {}
        self.providers: dict[str, ProviderConfig] = {}
        self.mcp: dict[str, McpServerConfig] = {}
        self.allow: list[str] = []
        self.ask: list[str] = []
        self.deny: list[str] = []
        self.approve: bool | None = None
        self.bash_wrapper: str | None = None
        self.sandbox: str | None = None
        self.sandbox_network = False
        self.allow_credentials = False
        self.pass_api_keys = False
        self.add_dirs: list[str] = []
        self.auto_continue = False
        self.hooks: list[str] = []
        self.project_hooks: list[str] = []
        self.pricing: dict[str, Price] = dict(BUILTIN_PRICING)
        self.warnings: list[str] = []
        self.model_vision: dict[str, bool] = {}
        self.project_host: str | None = None
        """The project file's `host`, held back until `project_servers` decides."""
        self.project_search_url: str | None = None
        """The project file's `search_url` (every query goes there): held back the same way."""
        self.project_providers: dict[str, ProviderConfig] = {}
        self.hosts: list[PoolHost] = []

    SCALARS = (
        "host",
        "model",
        "num_ctx",
        "temperature",
        "effort",
        "max_iterations",
        "search_url",
        "theme",
    )

    def _scalars(self, data: dict[str, Any]) -> None:
        for key in self.SCALARS:
            if key in data and data[key] is not None:
                self.values[key] = data[key]
        if isinstance(data.get("models"), dict):
            self.models.update({k: v for k, v in data["models"].items() if isinstance(v, str)})
        for name, settings in _dict(data.get("model_settings")).items():
            if isinstance(_dict(settings).get("vision"), bool):
                self.model_vision[name] = settings["vision"]

    def _permission_lists(self, perms: dict[str, Any], where: str) -> None:
        ask = _str_list(perms.get("ask"))
        deny = _str_list(perms.get("deny")) + [
            f"Bash({g})" for g in _str_list(perms.get("bash_deny"))
        ]
        _malformed_rules(ask + deny, where, self.warnings)
        self.ask += ask
        self.deny += deny

    def user(self, data: dict[str, Any], path: Path | None = None) -> None:
        where = f"config {path}" if path else "config"
        self._scalars(data)
        if isinstance(data.get("editor"), str):
            self.values["editor"] = data["editor"]
        if isinstance(data.get("auto_continue"), bool):
            self.auto_continue = data["auto_continue"]
        perms = _dict(data.get("permissions"))
        self._permission_lists(perms, where)
        allow = _str_list(perms.get("allow"))
        allow += [f"Bash({g})" for g in _str_list(perms.get("bash_allow"))]
        _malformed_rules(allow, where, self.warnings)
        self.allow += allow
        self.pricing.update(_prices(data.get("pricing"), where, self.warnings))
        approve = perms.get("approve", data.get("approve"))
        if isinstance(approve, bool):
            self.approve = approve
        wrapper = perms.get("bash_wrapper")
        if isinstance(wrapper, str) and "{cmd}" in wrapper:
            self.bash_wrapper = wrapper
        if isinstance(perms.get("sandbox"), str):
            self.sandbox = perms["sandbox"]
        for switch in ("sandbox_network", "allow_credentials", "pass_api_keys"):
            if isinstance(perms.get(switch), bool):
                setattr(self, switch, perms[switch])
        self.add_dirs += _str_list(perms.get("additional_directories"))
        self.hooks += _str_list(_dict(data.get("hooks")).get("post_edit"))
        for name, raw in _dict(data.get("providers")).items():
            prov = _provider(name, raw, self.env)
            if prov:
                self.providers[name] = prov
        if "hosts" in data:
            self.hosts = _pool_hosts(data["hosts"], where, self.env, self.warnings)
        for name, raw in _dict(data.get("mcp")).items():
            server = _mcp(name, raw, project=False)
            if server:
                self.mcp[name] = server

    def user_project(self, data: dict[str, Any], cwd: Path, path: Path | None = None) -> None:
        """The user config's allow rules for this project (`projects.<real path>.permissions.
        allow`): what "always allow … in this project" saved. Read from the user config only,
        so a repository can never grant itself anything."""
        entry = _dict(_dict(data.get("projects")).get(project_key(cwd)))
        allow = _str_list(_dict(entry.get("permissions")).get("allow"))
        _malformed_rules(allow, f"config {path}" if path else "config", self.warnings)
        self.allow += allow

    def project(self, data: dict[str, Any], path: Path) -> None:
        """Overlay the project file, tighten-only; every refused key is one warning."""
        host = data.pop("host", None)
        if isinstance(host, str) and host.strip():
            self.project_host = normalize_base_url(host)
        search_url = data.pop("search_url", None)
        if isinstance(search_url, str) and search_url.strip():
            self.project_search_url = search_url.strip()
        self._scalars(data)
        where = f"project config {path}"
        for key in ("editor", "typesafe", "auto_continue", "projects", "hosts"):
            if key in data:
                self.warnings.append(f"{where}: ignoring '{key}' (allowed in the user config only)")
        perms = _dict(data.get("permissions"))
        self._permission_lists(perms, where)
        for name, price in _prices(data.get("pricing"), where, self.warnings).items():
            self.pricing.setdefault(name, price)  # a project may add rates, not change them
        for key in (
            "allow",
            "bash_allow",
            "bash_wrapper",
            "allow_credentials",
            "additional_directories",
            "pass_api_keys",
        ):
            if key in perms:
                self.warnings.append(
                    f"{where}: ignoring 'permissions.{key}' (a project may only tighten"
                    " permissions; put it in the user config)"
                )
        approve = perms.get("approve", data.get("approve"))
        if approve is True:
            self.approve = True
        elif approve is False:
            key = "permissions.approve" if "approve" in perms else "approve"
            self.warnings.append(
                f"{where}: ignoring '{key}: false' (a project may only turn approval on;"
                " put it in the user config)"
            )
        self._project_sandbox(perms, where)
        self.project_hooks += _str_list(_dict(data.get("hooks")).get("post_edit"))
        for name, raw in _dict(data.get("providers")).items():
            if name in self.providers:
                self.warnings.append(
                    f"{where}: ignoring provider '{name}' (it is defined in the user config,"
                    " and providers decide where API keys are sent)"
                )
                continue
            prov = _provider(name, raw, self.env)
            if prov:
                # A project may add a server, never hand it a key from the user's environment.
                self.project_providers[name] = replace(prov, api_key=None)
        self.project_mcp(data.get("mcp") or {}, where)

    def _project_sandbox(self, perms: dict[str, Any], where: str) -> None:
        """A project may turn the sandbox on and the network off, never the reverse."""
        sandbox = perms.get("sandbox")
        if sandbox == "bwrap":
            self.sandbox = sandbox
        elif sandbox is not None:
            self.warnings.append(
                f"{where}: ignoring 'permissions.sandbox' {json.dumps(sandbox)} (a project may"
                ' only turn the sandbox on: "bwrap")'
            )
        if perms.get("sandbox_network") is False:
            self.sandbox_network = False
        elif "sandbox_network" in perms:
            self.warnings.append(
                f"{where}: ignoring 'permissions.sandbox_network' (a project may only turn the"
                " network off; put it in the user config)"
            )

    def project_mcp(self, servers: Any, where: str) -> None:
        for name, raw in _dict(servers).items():
            if name in self.mcp:
                self.warnings.append(f"{where}: ignoring MCP server '{name}' (already defined)")
                continue
            server = _mcp(name, raw, project=True)
            if server:
                self.mcp[name] = server


def parse_read_timeout(raw: str | None) -> float:
    """`RIFT_READ_TIMEOUT`: seconds, 0 = none; anything unparseable is the default, never none."""
    try:
        value = float(raw or "")
    except ValueError:
        return DEFAULT_READ_TIMEOUT
    return value if value >= 0 else DEFAULT_READ_TIMEOUT  # NaN is not >= 0 either


def coerce(values: dict[str, Any], key: str, kind: type, warnings: list[str]) -> Any:
    value = values.get(key)
    if value is None:
        return None
    try:
        if kind is int and isinstance(value, bool):
            raise ValueError
        return kind(value)
    except (TypeError, ValueError):
        warnings.append(f"config: '{key}' must be a {kind.__name__}, got {value!r}; ignoring it")
        return None


def _lsp_servers(raw: dict[str, Any]) -> dict[str, tuple[str, ...] | None]:
    servers: dict[str, tuple[str, ...] | None] = {}
    for key, value in raw.items():
        entry = _dict(value)
        command = _str_list(entry.get("command"))
        if entry.get("disabled") is True:
            servers[key.lower()] = None
        elif command:
            servers[key.lower()] = tuple(command)
    return servers


def lsp_setting(user: dict[str, Any], project: dict[str, Any], warnings: list[str]) -> LspConfig:
    """The `lsp` key from both layers, tighten-only for the project."""
    raw = user.get("lsp")
    enabled = raw is not False
    servers = _lsp_servers(raw) if isinstance(raw, dict) else {}
    if project.get("lsp") is False:
        enabled = False
    elif isinstance(project.get("lsp"), dict):
        warnings.append(
            "project config: ignoring 'lsp' server entries (a project may only turn LSP off"
            ' with "lsp": false; put servers in the user config)'
        )
    return LspConfig(enabled=enabled, servers=servers)

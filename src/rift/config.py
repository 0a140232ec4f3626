"""Layered configuration: defaults < user config < project .rift.json < env < flags.

The project file comes from whatever repository rift was started in, so it is
merged *tighten-only* (reference notes, section 2.4): it may add deny and ask
rules, pick a model, and force approval on, but it can never widen
permissions, pick the editor or the bash wrapper, or redefine a provider that
routes an API key. Every ignored key produces one warning.

Its `host` and `providers` decide which server sees everything the model
reads, so they take effect only once the user trusted that exact setting for
this project's real path (`rift --trust-project`, the same trust store as
plugins and hooks; `_project_servers`). Until then they are not applied, with
one warning that says how to trust them; a host given by flag or environment
makes the project's moot.

`load_config` is the only function in rift that looks at the environment; it
returns one frozen `Config` that components receive.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rift.paths import Paths
from rift.record import field, record, replace

DEFAULT_HOST = "http://localhost:11434"
DEFAULT_MODEL = "gemma4:26b"
DEFAULT_NUM_CTX = 32768
DEFAULT_TEMPERATURE = 0.2
DEFAULT_MAX_ITERATIONS = 40
DEFAULT_READ_TIMEOUT = 120.0
EFFORT_LEVELS = ("minimal", "low", "medium", "high", "xhigh", "max")
PROJECT_FILE = ".rift.json"


@record
class ProviderConfig:
    """A named model server reached as `name/model`."""

    name: str
    base_url: str
    """Always ends in /v1 for OpenAI-compatible providers."""
    kind: str = "openai"
    api_key: str | None = None
    """Resolved at load time from `api_key` or the variable named by `api_key_env`."""


@record
class Price:
    """USD per million tokens for a model, as `pricing.<substring>` gives it."""

    input: float
    output: float


BUILTIN_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
BUILTIN_PRICING: dict[str, Price] = {
    "claude-opus-4": Price(15.0, 75.0),
    "claude-sonnet-4": Price(3.0, 15.0),
    "claude-3-7-sonnet": Price(3.0, 15.0),
    "claude-3-5-sonnet": Price(3.0, 15.0),
    "claude-3-5-haiku": Price(0.8, 4.0),
    "claude-haiku-4": Price(1.0, 5.0),
}
"""Anthropic's list prices; anything else costs what the config's `pricing` says."""


@record
class McpServerConfig:
    """An MCP server: stdio (`command`) or streamable HTTP (`url`)."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    project: bool = False
    """Declared by the project: runs only after the user trusted its exact identity."""

    @property
    def identity(self) -> str:
        """The exact string trust is keyed to; any change asks again."""
        return json.dumps(
            [
                self.name,
                self.command,
                list(self.args),
                sorted(self.env),
                self.url,
                sorted(self.headers),
            ]
        )


@record
class PermissionsConfig:
    """Rules are `Tool(pattern)` strings; see core/permissions/rules.py."""

    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    approve: bool | None = None
    """None = on for interactive sessions."""
    bash_wrapper: str | None = None
    """Sandbox template with `{cmd}` (and optionally `{cwd}`); user config only."""
    sandbox: str | None = None
    """"bwrap" runs each bash command under bubblewrap (tools/sandbox.py); a project may
    switch it on, never off."""
    sandbox_network: bool = False
    """Let sandboxed commands use the network (user config only; a project may only say no)."""
    allow_credentials: bool = False
    """Lift the built-in Read guard on credential stores (permissions/credentials.py);
    user config only."""
    own_dirs: tuple[Path, ...] = ()
    """rift's own config and data dirs, guarded with the credential stores."""


# ---------------------------------------------------------------- lsp (issue 18)


@record
class LspConfig:
    """`"lsp": false` turns diagnostics after edits off; a map overrides servers per
    language or file extension: `{"python": {"command": ["pylsp"]}, "go": {"disabled": true}}`.
    Server commands come from the user config only: a cloned repository must not pick
    what rift runs (a project may only say `"lsp": false`)."""

    enabled: bool = True
    servers: Mapping[str, tuple[str, ...] | None] = field(default_factory=dict)
    """Language or extension → argv, or None when disabled."""


def _lsp_servers(raw: dict[str, Any]) -> dict[str, tuple[str, ...] | None]:
    servers: dict[str, tuple[str, ...] | None] = {}
    for key, entry in raw.items():
        if not isinstance(entry, dict):
            continue
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


@record
class Config:
    """Everything rift's components need to know, merged from every layer."""

    host: str = DEFAULT_HOST
    host_explicit: bool = False
    """True when any layer named a host (the embedded fallback only applies when none did)."""
    model: str = DEFAULT_MODEL
    num_ctx: int = DEFAULT_NUM_CTX
    num_ctx_explicit: bool = False
    """True when a flag or config file set num_ctx (providers may then not adopt a larger one)."""
    temperature: float = DEFAULT_TEMPERATURE
    effort: str | None = None
    max_iterations: int = DEFAULT_MAX_ITERATIONS
    models: Mapping[str, str] = field(default_factory=dict)
    """Role map, e.g. {"fast": "qwen2.5-coder:7b"}."""
    providers: Mapping[str, ProviderConfig] = field(default_factory=dict)
    builtin_keys: Mapping[str, str] = field(default_factory=dict)
    """API keys of the built-in providers (`openai`, `anthropic`), from the environment
    only (OPENAI_API_KEY, ANTHROPIC_API_KEY): never from a project file."""
    pricing: Mapping[str, Price] = field(default_factory=dict)
    """Model-name substring → USD per million tokens (built-in rates, then the user's,
    then the project's additions); see models/pricing.py."""
    permissions: PermissionsConfig = field(default_factory=PermissionsConfig)
    post_edit_hooks: tuple[str, ...] = ()
    """User hooks: run freely."""
    project_post_edit_hooks: tuple[str, ...] = ()
    """Project hooks: each exact command needs trust."""
    mcp: Mapping[str, McpServerConfig] = field(default_factory=dict)
    search_url: str | None = None
    """SearXNG base URL for web_search; None leaves the tool out."""
    lsp: LspConfig = field(default_factory=LspConfig)
    editor: str | None = None
    theme: str | None = None
    auto_continue: bool = False
    """A background task that finishes while idle starts a turn on its own (user config
    only: a repository must not make rift run turns unasked); the TUI's and serve's
    `hello` default."""
    read_timeout: float = DEFAULT_READ_TIMEOUT
    """Streaming read-idle timeout in seconds; 0 means none."""
    tool_schema: str = "rich"
    """"lean" cuts tool descriptions to their first sentence."""
    trace_file: Path | None = None
    paths: Paths = field(default_factory=lambda: Paths.from_env({}))
    cwd: Path = field(default_factory=Path.cwd)
    user_config_path: Path | None = None
    project_config_path: Path | None = None
    warnings: tuple[str, ...] = ()
    """Problems met while loading (broken JSON, ignored project keys), shown once."""
    untrusted_servers: str | None = None
    """The warning about the project's model-server settings left unapplied (also in
    `warnings`); startup adds it to a failure to reach the model."""


@record
class Overrides:
    """Values from command-line flags; None means the flag was not given."""

    host: str | None = None
    model: str | None = None
    num_ctx: int | None = None
    temperature: float | None = None
    max_iterations: int | None = None
    approve: bool | None = None
    effort: str | None = None
    trace_file: str | None = None
    trust_project: bool = False
    """`--trust-project`: trust this project's host/provider settings as they are now."""


# ------------------------------------------------------------------ loading


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
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _normalize_base_url(url: str) -> str:
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    return url


def _provider(name: str, raw: Any, env: Mapping[str, str]) -> ProviderConfig | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("base_url"), str):
        return None
    base = _normalize_base_url(raw["base_url"])
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
        # A project's providers lose every key afterwards (`_Merger.project`).
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
    from rift.core.permissions.rules import parse_rule  # pulled in only when a config is loaded

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
    env = _dict(raw.get("env"))
    headers = _dict(raw.get("headers"))
    return McpServerConfig(
        name=name,
        command=command,
        args=tuple(_str_list(raw.get("args"))),
        env=tuple(sorted((str(k), str(v)) for k, v in env.items())),
        url=url,
        headers=tuple(sorted((str(k), str(v)) for k, v in headers.items())),
        project=project,
    )


class _Merger:
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
        self.auto_continue = False
        self.hooks: list[str] = []
        self.project_hooks: list[str] = []
        self.pricing: dict[str, Price] = dict(BUILTIN_PRICING)
        self.warnings: list[str] = []
        self.project_host: str | None = None
        """The project file's `host`, held back until `_project_servers` decides."""
        self.project_providers: dict[str, ProviderConfig] = {}

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
        if isinstance(perms.get("sandbox_network"), bool):
            self.sandbox_network = perms["sandbox_network"]
        if isinstance(perms.get("allow_credentials"), bool):
            self.allow_credentials = perms["allow_credentials"]
        hooks = _dict(data.get("hooks"))
        self.hooks += _str_list(hooks.get("post_edit"))
        for name, raw in _dict(data.get("providers")).items():
            prov = _provider(name, raw, self.env)
            if prov:
                self.providers[name] = prov
        for name, raw in _dict(data.get("mcp")).items():
            server = _mcp(name, raw, project=False)
            if server:
                self.mcp[name] = server

    def user_project(self, data: dict[str, Any], cwd: Path, path: Path | None = None) -> None:
        """The user config's allow rules for this project (`projects.<real path>.permissions.
        allow`): what "always allow … in this project" saved. Read from the user config only,
        so a repository can never grant itself anything."""
        entry = _dict(_dict(data.get("projects")).get(project_path_key(cwd)))
        allow = _str_list(_dict(entry.get("permissions")).get("allow"))
        _malformed_rules(allow, f"config {path}" if path else "config", self.warnings)
        self.allow += allow

    def project(self, data: dict[str, Any], path: Path) -> None:
        """Overlay the project file, tighten-only; every refused key is one warning."""
        host = data.pop("host", None)
        if isinstance(host, str) and host.strip():
            self.project_host = _normalize_base_url(host)
        self._scalars(data)
        where = f"project config {path}"
        for key in ("editor", "typesafe", "auto_continue", "projects"):
            if key in data:
                self.warnings.append(f"{where}: ignoring '{key}' (allowed in the user config only)")
        perms = _dict(data.get("permissions"))
        self._permission_lists(perms, where)
        for name, price in _prices(data.get("pricing"), where, self.warnings).items():
            self.pricing.setdefault(name, price)  # a project may add rates, not change them
        for key in ("allow", "bash_allow", "bash_wrapper", "allow_credentials"):
            if key in perms:
                self.warnings.append(
                    f"{where}: ignoring 'permissions.{key}' (a project may only tighten"
                    " permissions; put it in the user config)"
                )
        if perms.get("approve", data.get("approve")) is True:
            self.approve = True
        self._project_sandbox(perms, where)
        hooks = _dict(data.get("hooks"))
        self.project_hooks += _str_list(hooks.get("post_edit"))
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
        if not isinstance(servers, dict):
            return
        for name, raw in servers.items():
            if name in self.mcp:
                self.warnings.append(f"{where}: ignoring MCP server '{name}' (already defined)")
                continue
            server = _mcp(name, raw, project=True)
            if server:
                self.mcp[name] = server


def _parse_read_timeout(raw: str | None) -> float:
    """`RIFT_READ_TIMEOUT`: seconds, 0 = none; anything unparseable is the default, never none."""
    if raw is None or not raw.strip():
        return DEFAULT_READ_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_READ_TIMEOUT
    if value != value or value < 0:  # NaN or negative
        return DEFAULT_READ_TIMEOUT
    return value


def _coerce(values: dict[str, Any], key: str, kind: type, warnings: list[str]) -> Any:
    value = values.get(key)
    if value is None:
        return None
    try:
        if kind is int and isinstance(value, bool):
            raise ValueError
        coerced = kind(value)
    except (TypeError, ValueError):
        warnings.append(f"config: '{key}' must be a {kind.__name__}, got {value!r}; ignoring it")
        return None
    return coerced


def load_config(
    env: Mapping[str, str],
    cwd: Path,
    overrides: Overrides | None = None,
) -> Config:
    """Merge every layer into one frozen Config (defaults < user < project < env < flags)."""
    flags = overrides or Overrides()
    paths = Paths.from_env(env)
    merger = _Merger(env)
    warnings = merger.warnings
    user_path = paths.user_config
    user_data = read_json_file(user_path, warnings)
    merger.user(user_data, user_path)
    merger.user_project(user_data, cwd, user_path)
    project_path = cwd / PROJECT_FILE
    project_data = read_json_file(project_path, warnings)
    merger.project(project_data, project_path)
    lsp = lsp_setting(user_data, project_data, warnings)
    mcp_json = read_json_file(cwd / ".mcp.json", warnings)
    merger.project_mcp(mcp_json.get("mcpServers") or {}, f"project {cwd / '.mcp.json'}")

    values = merger.values
    outside_host = env.get("RIFT_HOST") or flags.host
    untrusted = _project_servers(merger, paths, cwd, project_path, outside_host, flags)
    host_explicit = "host" in values
    if env.get("RIFT_HOST"):
        values["host"], host_explicit = env["RIFT_HOST"], True
    if env.get("RIFT_MODEL"):
        values["model"] = env["RIFT_MODEL"]
    num_ctx_explicit = "num_ctx" in values
    for key in ("host", "model", "num_ctx", "temperature", "max_iterations", "effort"):
        flag_value = getattr(flags, key)
        if flag_value is not None:
            values[key] = flag_value
            host_explicit = host_explicit or key == "host"
            num_ctx_explicit = num_ctx_explicit or key == "num_ctx"
    approve = True if flags.approve else merger.approve

    num_ctx = _coerce(values, "num_ctx", int, warnings)
    temperature = _coerce(values, "temperature", float, warnings)
    max_iterations = _coerce(values, "max_iterations", int, warnings)
    effort = values.get("effort")
    if effort is not None and effort not in EFFORT_LEVELS:
        warnings.append(f"config: unknown effort '{effort}' (valid: {', '.join(EFFORT_LEVELS)})")
        effort = None
    trace = flags.trace_file or env.get("RIFT_TRACE")
    return Config(
        host=_normalize_base_url(str(values.get("host") or DEFAULT_HOST)),
        host_explicit=host_explicit,
        model=str(values.get("model") or DEFAULT_MODEL),
        num_ctx=num_ctx if num_ctx and num_ctx > 0 else DEFAULT_NUM_CTX,
        num_ctx_explicit=num_ctx_explicit and bool(num_ctx and num_ctx > 0),
        temperature=DEFAULT_TEMPERATURE if temperature is None else temperature,
        effort=effort,
        max_iterations=max_iterations
        if max_iterations and max_iterations > 0
        else DEFAULT_MAX_ITERATIONS,
        models=dict(merger.models),
        providers=dict(merger.providers),
        builtin_keys={
            name: env[var].strip()
            for name, var in BUILTIN_KEY_ENV.items()
            if env.get(var, "").strip()
        },
        pricing=dict(merger.pricing),
        permissions=PermissionsConfig(
            allow=tuple(dict.fromkeys(merger.allow)),
            ask=tuple(dict.fromkeys(merger.ask)),
            deny=tuple(dict.fromkeys(merger.deny)),
            approve=approve,
            bash_wrapper=merger.bash_wrapper,
            sandbox=merger.sandbox,
            sandbox_network=merger.sandbox_network,
            allow_credentials=merger.allow_credentials,
            own_dirs=(paths.config_dir, paths.data_dir),
        ),
        post_edit_hooks=tuple(merger.hooks),
        project_post_edit_hooks=tuple(merger.project_hooks),
        mcp=dict(merger.mcp),
        search_url=values.get("search_url") if isinstance(values.get("search_url"), str) else None,
        lsp=lsp,
        editor=values.get("editor") if isinstance(values.get("editor"), str) else None,
        theme=values.get("theme") if isinstance(values.get("theme"), str) else None,
        auto_continue=merger.auto_continue,
        read_timeout=_parse_read_timeout(env.get("RIFT_READ_TIMEOUT")),
        tool_schema="lean" if env.get("RIFT_TOOL_SCHEMA") == "lean" else "rich",
        trace_file=Path(trace) if trace else None,
        paths=paths,
        cwd=cwd,
        user_config_path=user_path,
        project_config_path=project_path if project_path.exists() else None,
        warnings=tuple(warnings),
        untrusted_servers=untrusted,
    )


def _host_label(host: str) -> str:
    return f'host "{host}"'


def _provider_label(name: str, prov: ProviderConfig) -> str:
    return f'provider "{name}" ({prov.base_url})'


def project_server_keys(
    cwd: Path, host: str | None, providers: Mapping[str, ProviderConfig]
) -> dict[str, str]:
    """Trust keys (extend/trust.py style) for a project's host and providers, by label."""
    from rift.extend.trust import project_key

    where = project_key(cwd)
    keys = {}
    if host is not None:
        keys[_host_label(host)] = f"host:{where}:{json.dumps(['host', host])}"
    for name, prov in providers.items():
        setting = json.dumps(["provider", name, prov.base_url, prov.kind])
        keys[_provider_label(name, prov)] = f"host:{where}:{setting}"
    return keys


def _project_servers(
    merger: _Merger,
    paths: Paths,
    cwd: Path,
    project_path: Path,
    outside_host: str | None,
    flags: Overrides,
) -> str | None:
    """Apply the project's host and providers that are trusted; the warning for the rest.

    A project host equal to the user's own is no change, so it needs no trust;
    one that a flag or RIFT_HOST overrides is moot. `--trust-project` trusts
    what the project names now (persisted; if the store cannot be written it
    holds for this run, with a warning).
    """
    from rift.extend.trust import TrustStore

    host = merger.project_host
    user_host = _normalize_base_url(str(merger.values.get("host") or DEFAULT_HOST))
    if host is not None and (outside_host is not None or host == user_host):
        if outside_host is None:
            merger.values["host"] = host  # the server the user already uses
        host = None
    keys = project_server_keys(cwd, host, merger.project_providers)
    if not keys:
        return None
    store = TrustStore.load(paths)
    if flags.trust_project:
        for key in keys.values():
            try:
                store.trust_hook_entry(key)
            except OSError as exc:
                merger.warnings.append(f"trust not saved (it holds for this run only): {exc}")
    trusted = {label for label, key in keys.items() if key in store.hooks}
    if host is not None and _host_label(host) in trusted:
        merger.values["host"] = host
    for name, prov in merger.project_providers.items():
        if _provider_label(name, prov) in trusted:
            merger.providers[name] = prov
    untrusted = [label for label in keys if label not in trusted]
    if not untrusted:
        return None
    warning = (
        f"project config {project_path}: not using its model server settings"
        f" ({', '.join(untrusted)}) because a repository could send everything the model"
        f" reads there; if you trust this project, run rift once with --trust-project in {cwd}"
    )
    merger.warnings.append(warning)
    return warning


PERSISTABLE_KEYS = ("host", "model", "num_ctx")


def persist_setting(config: Config, key: str, value: Any) -> Path:
    """Write one of host/model/num_ctx to the file that governs it (reference 2.1).

    The project file governs a key it already sets; otherwise the user config
    does (created when missing). Other keys in the file are preserved.
    """
    from rift.paths import atomic_write

    if key not in PERSISTABLE_KEYS:
        raise ValueError(f"only {', '.join(PERSISTABLE_KEYS)} can be saved, not '{key}'")
    target = config.user_config_path or config.paths.user_config
    project = config.cwd / PROJECT_FILE
    scratch: list[str] = []
    if key in read_json_file(project, scratch):
        target = project
    data = read_json_file(target, scratch)
    data[key] = value
    atomic_write(target, json.dumps(data, indent=2) + "\n")
    if key == "host" and target == project and isinstance(value, str):
        _trust_chosen_host(config, value)
    return target


def project_path_key(cwd: Path) -> str:
    """How the user config's `projects` map names a project: its real path, so a
    symlinked checkout is the same project (as in the trust store)."""
    return os.path.realpath(cwd)


def persist_allow_rule(config: Config, rule: str, *, everywhere: bool) -> None:
    """Append an "always allow" rule to the user config: `permissions.allow`, or this
    project's `projects.<real path>.permissions.allow` (read back by `user_project`)."""
    from rift.paths import atomic_write

    path = config.user_config_path or config.paths.user_config
    data = read_json_file(path, [])
    keys = ["permissions", "allow"]
    if not everywhere:
        keys = ["projects", project_path_key(config.cwd), *keys]
    holder: Any = data
    for key in keys[:-1]:
        holder = holder.setdefault(key, {}) if isinstance(holder, dict) else None
    allow = holder.setdefault(keys[-1], []) if isinstance(holder, dict) else None
    if isinstance(allow, list) and rule not in allow:
        allow.append(rule)
        atomic_write(path, json.dumps(data, indent=2) + "\n")


def _trust_chosen_host(config: Config, host: str) -> None:
    """A host the user saved into the project file is their own choice: trust it there,
    or the next start would refuse it as the repository's. Best effort, like persisting."""
    from rift.extend.trust import TrustStore

    keys = project_server_keys(config.cwd, _normalize_base_url(host), {})
    with contextlib.suppress(OSError):
        TrustStore.load(config.paths).trust_hook_entry(next(iter(keys.values())))

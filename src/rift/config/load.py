"""Layered configuration: defaults < user config < project .rift.json < env < flags.

The project file comes from whatever repository rift was started in, so it is merged
*tighten-only*: it may add deny and ask rules, pick a model and force approval on, never
widen permissions, pick the editor or the bash wrapper, or redefine a provider that
routes an API key. Every ignored key is one warning. Its `host`, `providers` and
`search_url` decide which server sees everything the model reads, so they apply only once
the user trusted that exact setting for this project (`--trust-project`, `project_servers`).

`load_config` is the only function in rift that looks at the environment.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from msgspec.structs import replace

from rift.config.merge import (
    Merger,
    coerce,
    lsp_setting,
    normalize_base_url,
    parse_read_timeout,
    read_json_file,
)
from rift.config.records import (
    BUILTIN_KEY_ENV,
    DEFAULT_HOST,
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_MODEL,
    DEFAULT_NUM_CTX,
    DEFAULT_READ_TIMEOUT,
    DEFAULT_TEMPERATURE,
    EFFORT_LEVELS,
    PROJECT_FILE,
    Config,
    LspConfig,
    McpServerConfig,
    Overrides,
    PermissionsConfig,
    Price,
    ProviderConfig,
)
from rift.config.trust import TrustStore, project_key
from rift.fs.paths import Paths, atomic_write

__all__ = [  # re-exported: callers name the records through load
    "DEFAULT_HOST",
    "DEFAULT_MODEL",
    "DEFAULT_READ_TIMEOUT",
    "EFFORT_LEVELS",
    "PROJECT_FILE",
    "Config",
    "LspConfig",
    "McpServerConfig",
    "Overrides",
    "PermissionsConfig",
    "Price",
    "ProviderConfig",
]


def load_config(env: Mapping[str, str], cwd: Path, overrides: Overrides | None = None) -> Config:
    """Merge every layer into one frozen Config (defaults < user < project < env < flags)."""
    flags = overrides or Overrides()
    paths = Paths.from_env(env)
    merger = Merger(env)
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
    untrusted = project_servers(merger, paths, cwd, project_path, outside_host, flags)
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

    num_ctx = coerce(values, "num_ctx", int, warnings)
    temperature = coerce(values, "temperature", float, warnings)
    max_iterations = coerce(values, "max_iterations", int, warnings)
    effort = values.get("effort")
    if effort is not None and effort not in EFFORT_LEVELS:
        warnings.append(f"config: unknown effort '{effort}' (valid: {', '.join(EFFORT_LEVELS)})")
        effort = None
    trace = flags.trace_file or env.get("RIFT_TRACE")
    return Config(
        host=normalize_base_url(str(values.get("host") or DEFAULT_HOST)),
        host_explicit=host_explicit or bool(merger.hosts),  # a pool names its servers
        model_explicit="model" in values,
        model=str(values.get("model") or DEFAULT_MODEL),
        num_ctx=num_ctx if num_ctx and num_ctx > 0 else DEFAULT_NUM_CTX,
        num_ctx_explicit=num_ctx_explicit and bool(num_ctx and num_ctx > 0),
        temperature=DEFAULT_TEMPERATURE if temperature is None else temperature,
        effort=effort,
        max_iterations=max_iterations
        if max_iterations and max_iterations > 0
        else DEFAULT_MAX_ITERATIONS,
        models=dict(merger.models),
        model_vision=dict(merger.model_vision),
        providers=dict(merger.providers),
        hosts=tuple(merger.hosts),
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
            pass_api_keys=merger.pass_api_keys,
            own_dirs=(paths.config_dir, paths.data_dir),
            additional_directories=_added_dirs(
                [*merger.add_dirs, *flags.add_dirs], cwd, paths.home, warnings
            ),
        ),
        post_edit_hooks=tuple(merger.hooks),
        project_post_edit_hooks=tuple(merger.project_hooks),
        mcp=dict(merger.mcp),
        search_url=values.get("search_url") if isinstance(values.get("search_url"), str) else None,
        lsp=lsp,
        editor=_editor(values.get("editor"), env),
        theme=values.get("theme") if isinstance(values.get("theme"), str) else None,
        auto_continue=merger.auto_continue,
        read_timeout=parse_read_timeout(env.get("RIFT_READ_TIMEOUT")),
        ollama_context_length=_positive(env.get("OLLAMA_CONTEXT_LENGTH")),
        tool_schema="lean" if env.get("RIFT_TOOL_SCHEMA") == "lean" else "rich",
        trace_file=Path(trace) if trace else None,
        paths=paths,
        cwd=cwd,
        user_config_path=user_path,
        warnings=tuple(warnings),
        untrusted_servers=untrusted,
    )


def flag_overrides(args: Any, **more: Any) -> Overrides:
    """The model flags `rift` and `rift swarm` both take (`--host`, `-m`, `--num-ctx`,
    `--temp`, `--max-iterations`, `--effort`, `--trust-project`) from parsed `args`, and
    `more` of the caller's own."""
    return Overrides(
        host=args.host,
        model=args.model,
        num_ctx=args.num_ctx,
        temperature=args.temp,
        max_iterations=args.max_iterations,
        effort=args.effort,
        trust_project=args.trust_project,
        **more,
    )


RUNNING_MODEL = ("host", "host_explicit", "model", "num_ctx", "num_ctx_explicit", "temperature")
"""The settings a re-read config takes from the running one (`keep_running_model`)."""


def keep_running_model(fresh: Config, running: Config) -> Config:
    """A re-read config (`/config reload`, `/restart`) with the host, model, context and
    temperature that run now: they may come from flags or live switches (`/model`,
    `/host`, `/ctx` change them), which a config file does not know."""
    return replace(fresh, **{name: getattr(running, name) for name in RUNNING_MODEL})


def unreadable_config_files(env: Mapping[str, str], cwd: Path) -> list[str]:
    """The warnings (line and column, as at start-up) for a user or project config that
    exists but does not read as a JSON object. A reload that sees one keeps the settings in
    force: loading would drop that file's layer, deny rules included (issue 44)."""
    problems: list[str] = []
    for path in (Paths.from_env(env).user_config, cwd / PROJECT_FILE):
        read_json_file(path, problems)
    return problems


def _editor(configured: Any, env: Mapping[str, str]) -> str | None:
    """The user config's "editor", else $VISUAL, else $EDITOR (what `/config edit` runs)."""
    if isinstance(configured, str) and configured.strip():
        return configured
    return env.get("VISUAL", "").strip() or env.get("EDITOR", "").strip() or None


def _positive(raw: str | None) -> int | None:
    """A positive integer from an environment variable; None for anything else."""
    value = (raw or "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def _server_settings(
    host: str | None, providers: Mapping[str, ProviderConfig], search_url: str | None
) -> dict[str, list[str]]:
    """A project's host, search server and providers by label, each as the list its trust
    key names (`_server_trust_key`)."""
    settings: dict[str, list[str]] = {}
    if host is not None:
        settings[f'host "{host}"'] = ["host", host]
    if search_url is not None:
        settings[f'search_url "{search_url}"'] = ["search_url", search_url]
    for name, prov in providers.items():
        label = f'provider "{name}" ({prov.base_url})'
        settings[label] = ["provider", name, prov.base_url, prov.kind]
    return settings


def _server_trust_key(cwd: Path, setting: list[str]) -> str:
    """A project server setting's trust key (trust.py style): this project, this exact setting."""
    return f"host:{project_key(cwd)}:{json.dumps(setting)}"


def project_servers(
    merger: Merger,
    paths: Paths,
    cwd: Path,
    project_path: Path,
    outside_host: str | None,
    flags: Overrides,
) -> str | None:
    """Apply the project's host and providers that are trusted; the warning for the rest. A project
    host equal to the user's own is no change, so it needs no trust; one that a flag or RIFT_HOST
    overrides is moot. `--trust-project` trusts what the project names now (persisted; if the store
    cannot be written it holds for this run, with a warning)."""
    host = merger.project_host
    user_host = normalize_base_url(str(merger.values.get("host") or DEFAULT_HOST))
    if host is not None and (outside_host is not None or host == user_host):
        if outside_host is None:
            merger.values["host"] = host  # the server the user already uses
        host = None
    search_url = merger.project_search_url
    if search_url is not None and search_url == merger.values.get("search_url"):
        search_url = None  # the server the user already searches with
    settings = _server_settings(host, merger.project_providers, search_url)
    if not settings:
        return None
    keys = {label: _server_trust_key(cwd, setting) for label, setting in settings.items()}
    store = TrustStore.load(paths)
    if flags.trust_project:
        for key in keys.values():
            try:
                store.trust_hook_entry(key)
            except OSError as exc:
                merger.warnings.append(f"trust not saved (it holds for this run only): {exc}")
    untrusted = [label for label, key in keys.items() if key not in store.hooks]
    for kind, value, *_ in (s for label, s in settings.items() if label not in untrusted):
        if kind == "provider":
            merger.providers[value] = merger.project_providers[value]
        else:  # "host" or "search_url"
            merger.values[kind] = value
    if not untrusted:
        return None
    warning = (
        f"project config {project_path}: not using its model and search server settings"
        f" ({', '.join(untrusted)}) because a repository could send everything the model"
        f" reads there; if you trust this project, run rift once with --trust-project in {cwd}"
    )
    merger.warnings.append(warning)
    return warning


PERSISTABLE_KEYS = ("host", "model", "num_ctx")


def persist_setting(config: Config, key: str, value: Any) -> Path:
    """Write one of host/model/num_ctx to the file that governs it. The project file governs a key
    it already sets; otherwise the user config does (created when missing). Other keys in the file
    are preserved."""
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


USER_CONFIG_SKELETON = {
    "//": [
        "rift's user settings, read at start and by /config reload.",
        'JSON has no comments: a key that starts with "//" is a note rift ignores.',
        'To use a setting below, remove the "// " from its name.',
    ],
    "// model": "qwen2.5-coder:7b",
    "// host": "http://127.0.0.1:11434",
    "// num_ctx": 32768,
    "// temperature": 0.2,
    "// editor": "nano",
    "// permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(~/.ssh/**)"]},
}
"""What `/config edit` writes when there is no user config yet."""


def ensure_user_config(config: Config) -> tuple[Path, bool]:
    """The user config file, and True when it was just created with the skeleton."""
    path = config.user_config_path or config.paths.user_config
    if path.exists():
        return path, False
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(USER_CONFIG_SKELETON, indent=2) + "\n")
    return path, True


def persist_allow_rule(config: Config, rule: str, *, everywhere: bool) -> None:
    """Append an "always allow" rule to the user config: `permissions.allow`, or this
    project's `projects.<real path>.permissions.allow` (read back by `user_project`)."""
    path = config.user_config_path or config.paths.user_config
    data = read_json_file(path, [])
    keys = ["permissions", "allow"]
    if not everywhere:
        keys = ["projects", project_key(config.cwd), *keys]
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
    key = _server_trust_key(config.cwd, ["host", normalize_base_url(host)])
    with contextlib.suppress(OSError):
        TrustStore.load(config.paths).trust_hook_entry(key)


def _added_dirs(raw: list[str], cwd: Path, home: Path, warnings: list[str]) -> tuple[Path, ...]:
    """The directories added as writable roots, resolved; a missing one is one warning."""
    found: list[Path] = []
    for text in raw:
        path = Path(home.as_posix() + text[1:] if text == "~" or text.startswith("~/") else text)
        real = Path(os.path.realpath(cwd / path))
        if real.is_dir():
            found.append(real)
        else:
            warnings.append(f"ignoring added directory {text}: not a directory")
    return tuple(dict.fromkeys(found))

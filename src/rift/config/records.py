"""The configuration records: one frozen `Config` and the records it holds.

Kept apart from the merging (`merge.py`) and the loading (`load.py`) so
that a component, or the permission engine, can name a config type without
pulling in how the layers are read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from msgspec import Struct, field

from rift.fs.paths import Paths

DEFAULT_HOST = "http://localhost:11434"
DEFAULT_MODEL = "gemma4:26b"
DEFAULT_NUM_CTX = 32768
DEFAULT_TEMPERATURE = 0.2
DEFAULT_MAX_ITERATIONS = 40
DEFAULT_READ_TIMEOUT = 120.0
EFFORT_LEVELS = ("minimal", "low", "medium", "high", "xhigh", "max")
PROJECT_FILE = ".rift.json"


class ProviderConfig(Struct, frozen=True):
    """A named model server reached as `name/model`."""

    name: str
    base_url: str
    """Always ends in /v1 for OpenAI-compatible providers."""
    kind: str = "openai"
    api_key: str | None = None
    """Resolved at load time from `api_key` or the variable named by `api_key_env`."""


class Price(Struct, frozen=True):
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


class McpServerConfig(Struct, frozen=True):
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
        command = [self.command, list(self.args), sorted(self.env)]
        return json.dumps([self.name, *command, self.url, sorted(self.headers)])


class PermissionsConfig(Struct, frozen=True):
    """Rules are `Tool(pattern)` strings; see core/permissions/rules.py."""

    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    approve: bool | None = None
    """None = on for interactive sessions."""
    bash_wrapper: str | None = None
    """Sandbox template with `{cmd}` (and optionally `{cwd}`); user config only."""
    sandbox: str | None = None
    """"bwrap": each bash command runs under bubblewrap; a project may switch it on, not off."""
    sandbox_network: bool = False
    """Let sandboxed commands use the network (user config only; a project may only say no)."""
    allow_credentials: bool = False
    """Lift the Read guard on credential stores (permissions/credentials.py); user config only."""
    own_dirs: tuple[Path, ...] = ()
    """rift's own config and data dirs, guarded with the credential stores."""
    pass_api_keys: bool = False
    """Leave rift's model API keys in the environment of bash, hooks, plugins and language
    servers (rift/fs/child_env.py); user config only."""
    additional_directories: tuple[Path, ...] = ()
    """Writable roots besides the project (`--add-dir`, user config only): permissions/roots.py."""


class LspConfig(Struct, frozen=True):
    """`"lsp": false` turns diagnostics after edits off; a map overrides servers per
    language or file extension: `{"python": {"command": ["pylsp"]}, "go": {"disabled": true}}`.
    Server commands come from the user config only: a cloned repository must not pick
    what rift runs (a project may only say `"lsp": false`)."""

    enabled: bool = True
    servers: Mapping[str, tuple[str, ...] | None] = field(default_factory=dict)
    """Language or extension → argv, or None when disabled."""


class PoolHost(Struct, frozen=True):
    """One endpoint of the server pool (`hosts` in the user config, never a project's:
    a repository must not choose where the conversation goes). See rift/pool/."""

    url: str
    model: str
    weight: float = 1.0
    """A bigger share of new work (a faster machine); 1 for every server by default."""
    api_key: str | None = None
    """Read from the environment variable the entry's `api_key_env` names."""
    slots: int | None = None
    """Requests it runs at once, where the server does not say (vLLM's `--max-num-seqs`);
    None: asked (`/props`), else 1."""


class Config(Struct, frozen=True):
    """Everything rift's components need to know, merged from every layer."""

    host: str = DEFAULT_HOST
    host_explicit: bool = False
    """True when any layer named a host (the embedded fallback only applies when none did)."""
    model: str = DEFAULT_MODEL
    model_explicit: bool = False
    """True when a flag, RIFT_MODEL or a config file named the model; otherwise a server
    that serves exactly one model gets that one (issue 44)."""
    num_ctx: int = DEFAULT_NUM_CTX
    num_ctx_explicit: bool = False
    """True when a flag or config file set num_ctx (providers may then not adopt a larger one)."""
    temperature: float = DEFAULT_TEMPERATURE
    effort: str | None = None
    max_iterations: int = DEFAULT_MAX_ITERATIONS
    models: Mapping[str, str] = field(default_factory=dict)
    """Role map, e.g. {"fast": "qwen2.5-coder:7b"}."""
    model_vision: Mapping[str, bool] = field(default_factory=dict)
    """Model name → takes images (`model_settings.<name>.vision`) where the server won't say."""
    providers: Mapping[str, ProviderConfig] = field(default_factory=dict)
    hosts: tuple[PoolHost, ...] = ()
    """The server pool (user config only); empty: the single `host`, as ever."""
    builtin_keys: Mapping[str, str] = field(default_factory=dict)
    """API keys of the built-in providers (`openai`, `anthropic`), from the environment
    only (OPENAI_API_KEY, ANTHROPIC_API_KEY): never from a project file."""
    pricing: Mapping[str, Price] = field(default_factory=dict)
    """Model-name substring → USD per million tokens (built-in, user, then project additions)."""
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
    """A background task that finishes while idle starts a turn (user config only: a
    repository must not make rift run turns unasked)."""
    read_timeout: float = DEFAULT_READ_TIMEOUT
    """Streaming read-idle timeout in seconds; 0 means none."""
    ollama_context_length: int | None = None
    """OLLAMA_CONTEXT_LENGTH where rift runs: taken as the window Ollama's OpenAI-compatible
    endpoint serves (it ignores the one rift asks for); None when unset or not a number."""
    tool_schema: str = "rich"
    """"lean" cuts tool descriptions to their first sentence."""
    trace_file: Path | None = None
    paths: Paths = field(default_factory=lambda: Paths.from_env({}))
    cwd: Path = field(default_factory=Path.cwd)
    user_config_path: Path | None = None
    warnings: tuple[str, ...] = ()
    """Problems met while loading (broken JSON, ignored project keys), shown once."""
    untrusted_servers: str | None = None
    """The warning about the project's model-server settings left unapplied (also in
    `warnings`); startup adds it to a failure to reach the model."""


class Overrides(Struct, frozen=True):
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
    add_dirs: tuple[str, ...] = ()
    """`--add-dir PATH` (repeatable): more directories write/edit may change."""

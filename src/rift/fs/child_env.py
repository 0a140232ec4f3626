"""The environment every process rift starts gets: rift's own, without its API keys.

A bash command, a post-edit hook, a plugin command, a language server: each runs
code the repository chose (a `Makefile`, a `package.json` script, a project's
`node_modules`). With the key to a paid model in its environment that code
could send it anywhere (issue 30). So, unless the user opts in with
`permissions.pass_api_keys: true` in the user config, a child's environment
lacks:

- the variables rift reads keys from (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`),
- any `RIFT_*` variable whose name holds KEY, TOKEN or SECRET,
- any variable whose value is a key rift resolved for a provider (so a
  provider's own `api_key_env` name is covered, whatever it is).

MCP servers started over stdio already get only the SDK's short list of safe
variables plus what their config names; nothing here changes that.

`configure` is called once per session (core/conversation/startup.py) with the
keys the config resolved; until then only the names above are stripped.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

KEY_VARIABLES = frozenset({"OPENAI_API_KEY", "ANTHROPIC_API_KEY"})
"""The variables rift/config/load.py reads model keys from (BUILTIN_KEY_ENV)."""
_RIFT_SECRET_WORDS = ("KEY", "TOKEN", "SECRET")

_key_values: frozenset[str] = frozenset()
_pass_keys = False


def configure(key_values: Iterable[str | None], *, pass_keys: bool) -> None:
    """Remember the keys this session resolved, and whether the user lets children see them."""
    global _key_values, _pass_keys
    _key_values = frozenset(v for v in key_values if v and len(v) >= 8)
    _pass_keys = pass_keys


def is_secret(name: str, value: str) -> bool:
    """Whether the variable `name=value` carries one of rift's model keys."""
    if name in KEY_VARIABLES or value in _key_values:
        return True
    return name.startswith("RIFT_") and any(word in name for word in _RIFT_SECRET_WORDS)


def child_environ(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (default: rift's own environment) without the API keys, unless opted in."""
    env = dict(os.environ if base is None else base)
    if _pass_keys:
        return env
    return {name: value for name, value in env.items() if not is_secret(name, value)}

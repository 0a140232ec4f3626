"""`/config`: each setting's value in force and the layer it came from.

The merge itself (load.py) keeps no provenance, so this reads the two files again
and the environment, and names the highest layer that sets each key, in the merge's
order: defaults < user config < project `.rift.json` < environment < flags. A value
that differs from every layer that names it came from a flag (or a live change:
`/model`, `/ctx`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rift.config.load import PROJECT_FILE, Config
from rift.config.merge import Merger

SHOWN = (*Merger.SCALARS, "editor", "auto_continue", "read_timeout", "tool_schema")
"""The scalar settings `/config` lists (rules: `/permissions`; servers: `/mcp`): those the
merge reads as plain values, then those it checks on their own."""
ENV_KEYS = {
    "host": "RIFT_HOST",
    "model": "RIFT_MODEL",
    "read_timeout": "RIFT_READ_TIMEOUT",
    "tool_schema": "RIFT_TOOL_SCHEMA",
}
FALLBACK_ENV_KEYS = {"editor": ("VISUAL", "EDITOR")}
"""Variables that fill a key no config file sets (a file's setting wins over them)."""


def _file_keys(path: Path) -> Mapping[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def settings_sources(config: Config, env: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """(key, value, source) for each shown setting; source is a layer's name or path."""
    defaults = Config(cwd=config.cwd, paths=config.paths)
    user_path = config.user_config_path or config.paths.user_config
    user = _file_keys(user_path)
    project_path = config.cwd / PROJECT_FILE
    project = _file_keys(project_path)
    rows: list[tuple[str, str, str]] = []
    for key in SHOWN:
        value = getattr(config, key)
        source = "default"
        if key in user:
            source = f"user ({user_path})"
        if key in project:
            source = f"project ({project_path})"
        env_key = ENV_KEYS.get(key)
        if key not in user and key not in project:
            env_key = env_key or next(
                (k for k in FALLBACK_ENV_KEYS.get(key, ()) if env.get(k)), None
            )
        named = [layer[key] for layer in (user, project) if key in layer]
        if env_key and env.get(env_key):
            source = f"environment ({env_key})"
            named.append(env[env_key])
        if (named and str(value) not in {str(v) for v in named}) or (
            not named and str(value) != str(getattr(defaults, key))
        ):
            source = "command line or a live change"
        rows.append((key, "(unset)" if value is None else str(value), source))
    return rows

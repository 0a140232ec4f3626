"""The trust store: what the user approved once, so a cloned repository cannot run code unasked.

Two JSON arrays of strings in the data dir, each written atomically:

- `trusted-hooks.json`: exact project post-edit hook commands, and project
  plugin trust keys (`plugin:<sha256 of the manifest bytes>:<manifest path>`),
  so any edit of a manifest asks again;
- `trusted-mcp.json`: `McpServerConfig.identity` strings of project MCP servers.

A store that cannot be read or parsed counts as empty (nothing is trusted)
with a warning; it is never a crash. Adding an entry re-reads the file first,
so two rift processes trusting different things do not drop each other's entries.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from rift.paths import Paths, atomic_write


def plugin_trust_key(manifest_path: Path, manifest: bytes) -> str:
    """The key a project plugin's trust is stored under: any byte of change asks again."""
    return f"plugin:{hashlib.sha256(manifest).hexdigest()}:{manifest_path}"


def _load(path: Path, warnings: list[str]) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        warnings.append(f"trust store {path} cannot be read ({exc}); trusting nothing from it")
        return []
    if not text.strip():
        return []
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        warnings.append(
            f"trust store {path} is corrupt ({exc.msg} at line {exc.lineno}); trusting nothing"
            " from it (it is rewritten on the next approval)"
        )
        return []
    if not isinstance(data, list):
        warnings.append(f"trust store {path} is not a JSON array; trusting nothing from it")
        return []
    return [entry for entry in data if isinstance(entry, str)]


@dataclass
class TrustStore:
    """Both trust arrays, loaded once at startup and extended as the user approves."""

    hooks_path: Path
    mcp_path: Path
    hooks: set[str] = field(default_factory=set)
    mcp: set[str] = field(default_factory=set)
    warnings: list[str] = field(default_factory=list)
    """Problems met while loading, shown once by the front end."""

    @classmethod
    def load(cls, paths: Paths) -> TrustStore:
        store = cls(paths.trusted_hooks, paths.trusted_mcp)
        store.hooks = set(_load(store.hooks_path, store.warnings))
        store.mcp = set(_load(store.mcp_path, store.warnings))
        return store

    def trust_hook_entry(self, entry: str) -> None:
        """Persist a hook command or a plugin trust key.

        Raises:
            OSError: the store could not be written (the approval still holds for this run).
        """
        self.hooks.add(entry)
        self._append(self.hooks_path, entry)

    def trust_mcp(self, identity: str) -> None:
        """Persist an MCP server identity; raises OSError when the store cannot be written."""
        self.mcp.add(identity)
        self._append(self.mcp_path, identity)

    @staticmethod
    def _append(path: Path, entry: str) -> None:
        current = _load(path, [])
        if entry not in current:
            current.append(entry)
        atomic_write(path, json.dumps(current, indent=2, ensure_ascii=False) + "\n")

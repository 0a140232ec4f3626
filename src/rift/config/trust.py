"""The trust store: what the user approved once, so a cloned repository cannot run code unasked.

Two JSON arrays of strings in the data dir: `trusted-hooks.json` (project post-edit
hooks, plugins and model-server settings) and `trusted-mcp.json` (project MCP servers).
Every key names the project's real path, so trusting `sh ./lint.sh` in one repository
never runs another's. A plugin's key also hashes its manifest and every file under its
directory, so editing `tool.sh` asks again, and a plugin directory that is a symlink into
another (trusted) repository gets its own key and its own ask.

A store that cannot be read counts as empty, with a warning. Adding an entry re-reads the
file first, so two rift processes trusting different things keep each other's entries.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Protocol

from msgspec import Struct, field

from rift.fs.paths import Paths, atomic_write

_CHUNK = 1 << 16
MAX_HASHED_BYTES = 64 << 20
"""Bytes of a plugin's files its key hashes; past it, files count by name only."""
MAX_HASHED_ENTRIES = 20_000


def project_key(project: Path) -> str:
    """The project part of every key, and its name in the user config's `projects` map: its
    real path (a symlinked checkout is the same project)."""
    return os.path.realpath(project)


def hook_trust_key(project: Path, command: str) -> str:
    """A project post-edit hook: the exact command, in this project only."""
    return f"hook:{project_key(project)}:{command}"


def mcp_trust_key(project: Path, identity: str) -> str:
    """A project MCP server: its exact identity (`McpServerConfig.identity`), in this project."""
    return f"mcp:{project_key(project)}:{identity}"


class _Digest(Protocol):
    def update(self, data: bytes, /) -> None: ...


def plugin_trust_key(project: Path, plugin_dir: Path, manifest: bytes) -> str:
    """A project plugin: the manifest bytes and every file under `plugin_dir`, in this project.

    `plugin_dir` is the directory as found under the project (not resolved), so a
    symlink to a plugin trusted elsewhere is keyed, and asked, on its own.
    """
    import hashlib  # only with project plugins: _hashlib loads libcrypto (~4 ms)

    digest = hashlib.sha256(manifest)
    _hash_tree(digest, plugin_dir, "", [MAX_HASHED_BYTES, MAX_HASHED_ENTRIES])
    where = f"{project_key(project)}:{os.path.relpath(plugin_dir, project)}"
    return f"plugin:{digest.hexdigest()}:{where}"


def _hash_tree(digest: _Digest, directory: Path, prefix: str, budget: list[int]) -> None:
    """Names and contents under `directory`, sorted, within `budget` [bytes, entries].

    A symlinked directory counts by its target text and is not entered (a link to
    `/` must not mean hashing the disk); a file, linked or not, by its content
    when it is a regular file, so a FIFO or /dev/zero can never hang startup.
    Past the budget the rest counts by name only: best effort, and documented.
    """
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as exc:
        digest.update(f"\0{prefix}:unlistable:{exc.errno}".encode())
        return
    for entry in entries:
        budget[1] -= 1
        if budget[1] < 0:
            return
        name = prefix + entry.name
        digest.update(b"\0" + name.encode("utf-8", "surrogateescape") + b"\0")
        try:
            if entry.is_symlink() and entry.is_dir():
                digest.update(b"dirlink:" + os.fsencode(os.readlink(entry.path)))
            elif entry.is_dir(follow_symlinks=False):
                _hash_tree(digest, Path(entry.path), name + "/", budget)
            elif stat.S_ISREG(os.stat(entry.path).st_mode):
                _hash_file(digest, Path(entry.path), budget)
            else:
                digest.update(b"special")
        except OSError as exc:  # unreadable now: a different key than when it was readable
            digest.update(f"unreadable:{exc.errno}".encode())


def _hash_file(digest: _Digest, path: Path, budget: list[int]) -> None:
    with path.open("rb") as handle:
        while budget[0] > 0 and (chunk := handle.read(min(_CHUNK, budget[0]))):
            budget[0] -= len(chunk)
            digest.update(chunk)


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


class TrustStore(Struct, dict=True):
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
        """Persist a hook, plugin or project-host trust key; raises OSError when the store
        cannot be written (the approval still holds for this run)."""
        self.hooks.add(entry)
        self._append(self.hooks_path, entry)

    def trust_mcp(self, key: str) -> None:
        """Persist an MCP server trust key; raises OSError when the store cannot be written."""
        self.mcp.add(key)
        self._append(self.mcp_path, key)

    @staticmethod
    def _append(path: Path, entry: str) -> None:
        current = _load(path, [])
        if entry not in current:
            current.append(entry)
        atomic_write(path, json.dumps(current, indent=2, ensure_ascii=False) + "\n")

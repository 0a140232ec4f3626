"""Where rift keeps its files, following the XDG base-directory rules.

The locations are computed from an environment mapping handed in by the
caller (the CLI passes `os.environ` once), so nothing here reads the process
environment behind anyone's back and tests can point everything at a temp dir.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path

from msgspec import Struct


class Paths(Struct, frozen=True):
    """The directories rift reads and writes."""

    config_dir: Path
    """`$XDG_CONFIG_HOME/rift` (default `~/.config/rift`): config.json, skills, plugins."""
    data_dir: Path
    """`$XDG_DATA_HOME/rift` (default `~/.local/share/rift`): sessions and trust stores."""
    cache_dir: Path
    """`$XDG_CACHE_HOME/rift` (default `~/.cache/rift`): assembled models."""
    home: Path
    state_dir: Path = Path()
    """`$XDG_STATE_HOME/rift` (default `~/.local/state/rift`): the log file."""

    @property
    def log_file(self) -> Path:
        return self.state_dir / "rift.log"

    @property
    def user_config(self) -> Path:
        return self.config_dir / "config.json"

    @property
    def sessions_dir(self) -> Path:
        return self.data_dir / "sessions"

    @property
    def trusted_hooks(self) -> Path:
        return self.data_dir / "trusted-hooks.json"

    @property
    def trusted_mcp(self) -> Path:
        return self.data_dir / "trusted-mcp.json"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Paths:
        home = Path(env.get("HOME") or Path.home())

        def xdg(var: str, fallback: str) -> Path:
            value = env.get(var, "")
            base = Path(value) if value and Path(value).is_absolute() else home / fallback
            return base / "rift"

        return cls(
            config_dir=xdg("XDG_CONFIG_HOME", ".config"),
            data_dir=xdg("XDG_DATA_HOME", ".local/share"),
            cache_dir=xdg("XDG_CACHE_HOME", ".cache"),
            home=home,
            state_dir=xdg("XDG_STATE_HOME", ".local/state"),
        )


MEMORY_FILE = Path(".rift") / "memory.md"
"""The project memory the `remember` tool writes and the system prompt reads."""
READ_LIMIT = 1 << 20
"""Bytes read from one file into a prompt: far past any cap, and a bound on a huge or
endless file."""


def contained_file(path: Path, root: Path) -> Path | None:
    """`path`'s real location when that is a regular file inside `root`'s real location.

    Shared by everything rift reads into a prompt on its own (instruction files,
    skills, personas): a symlink may point anywhere in the tree, never out of it.
    """
    try:
        real = path.resolve(strict=True)
        if not real.is_relative_to(root.resolve(strict=True)) or not real.is_file():
            return None
    except (OSError, RuntimeError):  # missing, unreadable, a symlink loop
        return None
    return real


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write `data` to `path` so that readers see the old file or the new one, never half.

    Temp file in the same directory, fsync, rename: a crash at any moment leaves
    either the previous content or the complete new content on disk. A file that
    exists keeps its permission bits (undo must not turn an executable script into
    a private data file); a new one is private (0600), as rift's own files should be.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp_name = _create_temp(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            with contextlib.suppress(FileNotFoundError):
                os.fchmod(handle.fileno(), os.stat(path).st_mode & 0o777)
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


_TEMP_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _create_temp(path: Path) -> tuple[int, str]:
    """A new file beside `path` with a random name, created exclusively (never an existing
    file or a planted symlink), mode 0600: what `tempfile.mkstemp` does, without importing
    tempfile (with shutil, random, bz2 and lzma) on every run that saves a session."""
    for _ in range(100):
        name = str(path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(name, _TEMP_FLAGS, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


HOME_STORES = (
    ".ssh",
    ".aws",
    ".gnupg",
    ".netrc",
    ".docker/config.json",
    ".kube",
    ".config/gh",
    ".git-credentials",
    ".config/git/credentials",
    ".npmrc",
)
"""Credential stores, relative to the home directory: the Read guard's
(core/permissions/credentials.py) and what the bwrap sandbox hides (tools/sandbox_hide.py)."""

"""The built-in Read guard for credential stores.

Whoever answers the model's requests sees everything the tools read, and reads
never ask. So the usual places keys live are Read-denied before any user rule
is consulted: rift's own config and data dirs (provider API keys, trust stores,
sessions), the home stores (`HOME_STORES`: `~/.ssh`, `~/.aws`, ...), and `.env*` files
outside the project. The user lifts it in their own config, never a project's: an
allow rule naming the path (`Read(~/.aws/**)`) or `permissions.allow_credentials`.

For bash the guard is best effort: words that name a guarded path (`cat
~/.ssh/id_rsa`, `--file=$HOME/.aws/credentials`) are refused, while computed
paths (`cat ~/.s*/id*`, `cd ~; cat .ssh/id_rsa`) get through; the sandbox is
the boundary for those.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from msgspec import Struct

from rift.fs.paths import HOME_STORES
from rift.text.patterns import lazy

DEFAULT_OWN_DIRS = (".config/rift", ".local/share/rift")
"""rift's config and data dirs when XDG does not move them (the config passes the real ones)."""
_REDIRECT = lazy(r"^\d*[<>]+&?")
_HOME_PREFIX = lazy(r"^(?:~|\$HOME|\$\{HOME\})(?=/|$)")


def default_roots(home: Path, own_dirs: Sequence[Path] = ()) -> tuple[Path, ...]:
    """Every guarded root: the home stores plus rift's own dirs (defaults when none given)."""
    own = own_dirs or tuple(home / d for d in DEFAULT_OWN_DIRS)
    return (*(home / s for s in HOME_STORES), *own)


class CredentialGuard(Struct, frozen=True):
    """Canonical guarded roots, and whether `.env*` outside the project is guarded too."""

    roots: tuple[str, ...]
    cwd: str
    env_files: bool = True
    fold_case: bool = False

    @classmethod
    def build(cls, roots: Iterable[Path], cwd: Path, *, fold_case: bool = False) -> CredentialGuard:
        real_cwd = os.path.realpath(cwd)
        kept = []
        for root in roots:
            real = os.path.realpath(root)
            if not _under(real_cwd, real, fold_case):  # rift started inside it: the user's choice
                kept.append(real)
        return cls(tuple(dict.fromkeys(kept)), real_cwd, fold_case=fold_case)

    @classmethod
    def off(cls) -> CredentialGuard:
        return cls((), "/", env_files=False)

    def rule_for(self, real: str) -> str | None:
        """The built-in rule text guarding the canonical path `real`, or None."""
        for root in self.roots:
            if _under(real, root, self.fold_case):
                return f"Read({root}/**) (built-in credential guard)"
        name = os.path.basename(real)
        if (
            self.env_files
            and (name.lower() if self.fold_case else name).startswith(".env")
            and not _under(real, self.cwd, self.fold_case)
        ):
            return "Read(.env* outside the project) (built-in credential guard)"
        return None

    def paths_in_command(self, texts: Iterable[str], home: Path) -> Iterable[str]:
        """Canonical paths that words of a bash command's forms plausibly name (best effort)."""
        if not self.roots and not self.env_files:
            return
        pieces = {
            _REDIRECT().sub("", piece.strip("'\""))
            for text in texts
            for word in text.split()
            for piece in word.split("=")
        }
        for piece in sorted(pieces):
            piece = _HOME_PREFIX().sub(home.as_posix(), piece)
            name = piece.rstrip("/").rsplit("/", 1)[-1]
            if "\x00" in piece:
                continue  # no file path holds a NUL (realpath raises); the shell cuts it
            if "/" in piece or name.startswith(".env") or name == ".netrc":
                yield os.path.realpath(piece if piece.startswith("/") else f"{self.cwd}/{piece}")


def _under(path: str, root: str, fold_case: bool) -> bool:
    if fold_case:
        path, root = path.lower(), root.lower()
    return path == root or path.startswith(root.rstrip("/") + "/")

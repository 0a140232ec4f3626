"""The path forms a path rule is matched against, and a rule's own path forms.

Split from rules.py: both sides are canonical (symlinks resolved, `..` folded), so a
rule written through a symlinked folder and a path reached through one meet.
"""

from __future__ import annotations

import os
import re
from pathlib import Path


def canonical(path: Path, cwd: Path) -> Path:
    """Absolute, symlinks resolved, `.`/`..` folded; missing tails appended as written."""
    return Path(os.path.realpath(path if path.is_absolute() else cwd / path))


def path_candidates(path: Path, cwd: Path) -> list[str]:
    """The forms a path rule is matched against: cwd-relative (when under cwd) and absolute."""
    real = canonical(path, cwd)
    out = [real.as_posix()]
    try:
        relative = real.relative_to(canonical(cwd, cwd))
    except ValueError:
        return out
    return [relative.as_posix(), *out] if relative.parts else out


def path_patterns(pattern: str, cwd: Path, home: Path) -> list[str]:
    """A path rule as written plus its literal directory prefix canonicalised.

    Without the second form `Read(secrets/**)` would miss `secrets/key` when
    `secrets` is a symlink (candidates are canonical), and `Edit(../lib/**)` or
    `Edit(/tmp/**)` on macOS (/tmp -> /private/tmp) could never match at all.
    """
    if pattern == "~" or pattern.startswith("~/"):
        pattern = home.as_posix() + pattern[1:]
    while pattern.startswith("./"):
        pattern = pattern[2:]
    parts = pattern.split("/")
    literal = next((i for i, part in enumerate(parts) if re.search(r"[*?\[{]", part)), len(parts))
    prefix = "/".join(parts[:literal])
    if not prefix and not pattern.startswith("/"):
        prefix = "."
    resolved = canonical(Path(prefix or "/"), cwd).as_posix()
    rest = "/".join(parts[literal:])
    joined = resolved if not rest else resolved.rstrip("/") + "/" + rest
    return list(dict.fromkeys([pattern, joined]))

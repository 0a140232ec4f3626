"""`@path` mentions in the composer: completion candidates, pasted image paths.

The core attaches the mentioned files, so every face attaches them the same way."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

from rift.fs.gitcmd import GitRefused, run_git

INDEX_CAP = 20_000
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", "target", "dist"}
)


def token_at(line: str, column: int) -> str | None:
    """The `@partial` word that ends at `column`, without the `@`; None when there is none."""
    start = column
    while start > 0 and not line[start - 1].isspace():
        start -= 1
    word = line[start:column]
    return word[1:] if word.startswith("@") and "@" not in word[1:] else None


def file_index(cwd: Path) -> list[str]:
    """Project files for completion: git's view when it is a repository, else a walk."""
    try:
        out = run_git(cwd, "ls-files", "-co", "--exclude-standard", timeout=3)
    except (GitRefused, OSError, subprocess.SubprocessError):
        return _walk(cwd)
    if out.returncode != 0:
        return _walk(cwd)
    text = out.stdout.decode("utf-8", "replace")
    return [line for line in text.splitlines() if line][:INDEX_CAP]


def _walk(cwd: Path) -> list[str]:
    found: list[str] = []
    for root, dirs, files in os.walk(cwd):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        rel = Path(root).relative_to(cwd)
        for name in sorted(files):
            found.append(str(rel / name) if rel.parts else name)
            if len(found) >= INDEX_CAP:
                return found
    return found


def complete(partial: str, index: list[str], limit: int = 12) -> list[str]:
    """Index entries for `partial`: path prefixes first, then file-name and substring hits."""
    needle = partial.lower()
    first = [p for p in index if p.lower().startswith(needle)]
    names = [p for p in index if os.path.basename(p).lower().startswith(needle)]
    rest = [p for p in index if needle in p.lower()]
    return list(dict.fromkeys([*first, *names, *rest]))[:limit]


def pasted_image(text: str, cwd: Path) -> str | None:
    """A paste that is one image file's path (quoted, `file://`, backslash-escaped, as a
    terminal pastes a dragged file) as the `@mention` that attaches it; None for anything
    else, a path with whitespace included, which is pasted as is."""
    from rift.models.attachments import IMAGE_TYPES  # not before the first frame

    raw = text.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        raw = raw[1:-1]
    if raw.startswith("file://"):
        raw = unquote(urlsplit(raw).path)
    raw = raw.replace("\\ ", " ")
    if not raw or "\n" in raw or Path(raw).suffix.lower() not in IMAGE_TYPES:
        return None
    path = (cwd / Path(raw).expanduser()).resolve()
    if not path.is_file():
        return None
    try:
        shown = str(path.relative_to(cwd.resolve()))
    except ValueError:
        shown = str(path)
    if any(c.isspace() for c in shown):
        return None
    return f"@{shown} "

"""`@path` mentions: completion candidates and attaching file contents to a prompt.

A mention is `@` at the start of the prompt or after whitespace, followed by a
path relative to the project. Sending a prompt appends each mentioned text
file (capped) after the prompt, so the model sees it without a `read` call.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from rift.gitcmd import git_argv

ATTACH_CAP_BYTES = 48_000
INDEX_CAP = 20_000
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", "target", "dist"}
)
_MENTION = re.compile(r"(?:(?<=\s)|^)@([^\s@]+)")


@dataclass(frozen=True, slots=True)
class Expanded:
    """A prompt with its mentions attached, plus one line per mention that failed."""

    text: str
    attached: list[str]
    problems: list[str]


def mentions(text: str) -> list[str]:
    """The mentioned paths, in order, without duplicates."""
    return list(dict.fromkeys(m.group(1).rstrip(".,;:!?)") for m in _MENTION.finditer(text)))


def expand(text: str, cwd: Path) -> Expanded:
    """Append each mentioned file's content to the prompt."""
    blocks: list[str] = []
    attached: list[str] = []
    problems: list[str] = []
    for name in mentions(text):
        path = (cwd / name).resolve()
        if not path.is_file():
            if (cwd / name).exists() or "/" in name or "." in name:
                problems.append(f"@{name}: not a file, not attached")
            continue  # `@someone` in prose is not a mention
        try:
            data = path.read_bytes()
        except OSError as exc:
            problems.append(f"@{name}: {exc.strerror or exc}")
            continue
        if b"\x00" in data[:8192]:
            problems.append(f"@{name}: binary file, not attached")
            continue
        body = data[:ATTACH_CAP_BYTES].decode("utf-8", errors="replace")
        if len(data) > ATTACH_CAP_BYTES:
            body += f"\n[… truncated: {len(data)} bytes, first {ATTACH_CAP_BYTES} shown]"
        blocks.append(f'<file path="{name}">\n{body}\n</file>')
        attached.append(name)
    if not blocks:
        return Expanded(text, attached, problems)
    return Expanded(text + "\n\nAttached files:\n" + "\n".join(blocks), attached, problems)


def token_at(line: str, column: int) -> str | None:
    """The `@partial` word that ends at `column`, without the `@`; None when there is none."""
    start = column
    while start > 0 and not line[start - 1].isspace():
        start -= 1
    word = line[start:column]
    if not word.startswith("@") or "@" in word[1:]:
        return None
    return word[1:]


def file_index(cwd: Path) -> list[str]:
    """Project files for completion: git's view when it is a repository, else a walk."""
    try:
        out = subprocess.run(
            git_argv("ls-files", "-co", "--exclude-standard"),
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=3,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return _walk(cwd)
    return [line for line in out.stdout.splitlines() if line][:INDEX_CAP]


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

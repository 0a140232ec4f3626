"""Project instructions for the system prompt: RIFT.md, AGENTS.md, CLAUDE.md, memory.

All three conventional names are read, each labelled with its source, so a project
written for another agent works unchanged. The total is capped, and `.rift/memory.md`
(what the `remember` tool appended) has its own smaller budget so a long instructions
file cannot crowd it out.

These files come from whatever repository rift was started in and reach the
model with no tool call, so a file is taken only when its real path (symlinks
resolved) stays inside the project, it is a regular file, and the Read rules
allow it (`readable`); otherwise a hostile `AGENTS.md -> ~/.config/rift/config.json`
would send the user's API keys to the model server on the first request.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rift.fs.paths import MEMORY_FILE, READ_LIMIT, contained_file

INSTRUCTION_FILES = ("RIFT.md", "AGENTS.md", "CLAUDE.md")
DEFAULT_CAP = 16_000
MEMORY_CAP = 4_000


def load_project_instructions(
    cwd: Path,
    cap: int = DEFAULT_CAP,
    *,
    readable: Callable[[Path], bool] | None = None,
) -> str:
    """The project's instruction files ("# From <name>" sections, `cap` characters in
    all) and then its memory, as one text; "" when there are none. `readable` is the Read
    rules' answer for a path (the gate's); None allows all."""
    sections: list[str] = []
    seen: set[Path] = set()
    for name in INSTRUCTION_FILES:
        real = contained_file(cwd / name, cwd)
        if real is None or real in seen:  # CLAUDE.md is often a symlink to AGENTS.md
            continue
        text = _read(real, readable)
        if text is None:
            continue
        seen.add(real)
        sections.append(f"# From {name}\n\n{text}")
    out: list[str] = []
    if sections:
        out.append(_cap_head("\n\n".join(sections), cap, "project instructions"))
    memory_path = contained_file(cwd / MEMORY_FILE, cwd)
    memory = None if memory_path is None else _read(memory_path, readable)
    if memory is not None:
        out.append(f"# Project memory (.rift/memory.md)\n\n{_cap_tail(memory, MEMORY_CAP)}")
    return "\n\n".join(out)


def _read(path: Path, readable: Callable[[Path], bool] | None) -> str | None:
    """The file's text without surrounding blank space; None when denied, unreadable or empty."""
    if readable is not None and not readable(path):
        return None
    try:
        with path.open("rb") as handle:
            raw = handle.read(READ_LIMIT)
    except OSError:
        return None
    return raw.decode("utf-8", errors="replace").strip() or None


def _cap_head(text: str, cap: int, what: str) -> str:
    """Keep the beginning: instructions front-load what matters most."""
    if len(text) <= cap:
        return text
    return text[:cap].rstrip() + f"\n\n[… {what} truncated at {cap} characters]"


def _cap_tail(text: str, cap: int) -> str:
    """Keep the end, from a line start: memory is appended, so the newest facts are last."""
    if len(text) <= cap:
        return text
    kept = text[-cap:]
    newline = kept.find("\n")
    if 0 <= newline < len(kept) - 1:
        kept = kept[newline + 1 :]
    return f"[… older memory entries omitted; {MEMORY_CAP}-character budget]\n{kept}"

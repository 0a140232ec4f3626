"""Project instructions for the system prompt: RIFT.md, AGENTS.md, CLAUDE.md, memory.

Repositories carry agent instructions under several conventional names; rift
reads all three at the working directory so a project written for another
agent works unchanged. Each source is labelled so the model knows where a rule
came from. The total is capped (these files share the context window with the
conversation), and `.rift/memory.md` — facts the `remember` tool appended —
gets its own smaller budget so a long instructions file cannot crowd it out.
"""

from __future__ import annotations

from pathlib import Path

INSTRUCTION_FILES = ("RIFT.md", "AGENTS.md", "CLAUDE.md")
MEMORY_FILE = Path(".rift") / "memory.md"
DEFAULT_CAP = 16_000
MEMORY_CAP = 4_000


def load_project_instructions(cwd: Path, cap: int = DEFAULT_CAP) -> str:
    """The project's instruction files and memory as one text, or "" when there are none.

    Args:
        cwd: The project directory (files are looked up there only).
        cap: Most characters taken from the instruction files together.

    Returns:
        "# From <name>" sections, then a memory section, separated by blank lines.
    """
    sections: list[str] = []
    seen: set[Path] = set()
    for name in INSTRUCTION_FILES:
        path = cwd / name
        text = _read(path)
        real = path.resolve()
        if text is None or real in seen:  # CLAUDE.md is often a symlink to AGENTS.md
            continue
        seen.add(real)
        sections.append(f"# From {name}\n\n{text}")
    out: list[str] = []
    if sections:
        out.append(_cap_head("\n\n".join(sections), cap, "project instructions"))
    memory = _read(cwd / MEMORY_FILE)
    if memory is not None:
        out.append(f"# Project memory (.rift/memory.md)\n\n{_cap_tail(memory, MEMORY_CAP)}")
    return "\n\n".join(out)


def _read(path: Path) -> str | None:
    """The file's text without surrounding blank space; None when absent, unreadable or empty."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace").strip()
    except OSError:
        return None
    return text or None


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

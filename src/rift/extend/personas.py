"""Agent personas: named roles a delegated task can run as.

`.rift/agents/<name>.md` (the project's, winning collisions) or
`~/.config/rift/agents/<name>.md`, with front matter::

    ---
    name: reviewer
    description: Reviews a change for bugs; never edits.
    model: fast                 # a role from `models` or a full model name
    tools: read, grep, glob     # comma-separated whitelist (absent = every tool)
    ---
    You are a careful reviewer. …

The body is prepended to the task's prompt. Personas are only instructions, so a
project's need no trust; like skills, a persona file must resolve inside the tree it was
found in (a project's must pass the Read rules), so a symlink cannot pull in a file.
"""

from __future__ import annotations

from pathlib import Path

from rift.extend.skills import (
    BODY_CAP,
    DESCRIPTION_CAP,
    Readable,
    read_contained,
    split_front_matter,
)
from rift.tools.delegation import Persona


def parse_persona(text: str, fallback_name: str) -> Persona:
    meta, body = split_front_matter(text)
    tools = meta.get("tools")
    whitelist = None
    if tools is not None:  # "read, grep" or "[read, grep]"
        names = (t.strip().strip("\"'") for t in tools.strip("[]").split(","))
        whitelist = tuple(n for n in names if n)
    body = body.strip()
    if len(body) > BODY_CAP:
        body = body[:BODY_CAP] + f"\n[persona truncated at {BODY_CAP} characters]"
    return Persona(
        name=meta.get("name") or fallback_name,
        description=(meta.get("description") or "(no description)")[:DESCRIPTION_CAP],
        body=body,
        model=meta.get("model") or None,
        tools=whitelist,
    )


def _scan(directory: Path, root: Path, readable: Readable | None) -> list[Persona]:
    found = ((read_contained(e, root, readable), e.stem) for e in sorted(directory.glob("*.md")))
    return [parse_persona(text, stem) for text, stem in found if text is not None]


def discover_personas(
    project_dir: Path, user_config_dir: Path, readable: Readable | None = None
) -> dict[str, Persona]:
    """Every persona by name, sorted; the project's win collisions (and pass `readable`)."""
    user = _scan(user_config_dir / "agents", user_config_dir, None)
    project = _scan(project_dir / ".rift" / "agents", project_dir, readable)
    return dict(sorted({p.name: p for p in (*user, *project)}.items()))

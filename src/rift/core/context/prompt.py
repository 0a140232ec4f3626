"""The system prompt: short on purpose, because every byte is re-sent on every call and a
local model pays for each with prefill time. Project instructions, skills and personas are
appended by the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

BASE_PROMPT = """\
You are rift, a coding agent working in the user's project at {cwd}.
Use the tools to inspect and change files and to run commands; do not just describe a \
change, make it. Read a file before you edit it. Prefer `edit` for small changes and \
`write` for new files. Run the project's tests or the relevant command to check your work \
when that is cheap. When the task is done, reply briefly with what you changed."""

SMALL_MODEL_PROMPT = """\
You are rift, a coding agent working in the user's project, the current directory; give \
paths relative to it. Work step by step with the tools, one call per step. Always read a \
file before you edit or write it. Use edit with old_string copied exactly from what read \
showed (whole lines, without the line-number prefix). When the work is done, give your \
final answer: one short sentence saying what you changed."""

SUBAGENT_SUFFIX = (
    "\n\nYou are a sub-agent working on one delegated task. When you finish, reply with a "
    "concise final report of what you found or changed."
)


USER_PROMPT_FILE = "system_prompt.md"
"""In the user config dir: replaces the built-in base prompt (AGENTS.md and the rest still add)."""
USER_PROMPT_CAP = 32_000


def user_base_prompt(config_dir: Path) -> str | None:
    """The user's own base prompt (`system_prompt.md` in the user config dir), or None. Only
    that dir is read: a repository cannot replace what rift tells the model about itself."""
    try:
        raw = (config_dir / USER_PROMPT_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:  # absent (the usual case), unreadable, a directory
        return None
    text = raw[:USER_PROMPT_CAP].strip()
    return text or None


def build_system_prompt(
    cwd: Path,
    *,
    base: str | None = None,
    instructions: str = "",
    skills: Sequence[tuple[str, str]] = (),
    roles: Sequence[str] = (),
    personas: Sequence[tuple[str, str]] = (),
    small_model: bool = False,
    persona: str = "",
) -> str:
    """Assemble the system prompt from its parts; empty parts leave no trace.

    `base`: the user's own base prompt (`user_base_prompt`), in place of the built-in one."""
    # The small model's prompt names no directory: it is then the same in every project,
    # and the embedded model loads its evaluated state from disk (embedded_backends).
    if base is not None:
        parts = [base.replace("{cwd}", str(cwd))]
    else:
        parts = [SMALL_MODEL_PROMPT if small_model else BASE_PROMPT.format(cwd=cwd)]
    if skills:
        listing = "\n".join(f"- {name}: {desc}" for name, desc in skills)
        parts.append(f"Skills (load one with the `skill` tool when it fits the task):\n{listing}")
    if roles:
        parts.append("Model roles for sub-agents: " + ", ".join(roles))
    if personas:
        listing = "\n".join(f"- {name}: {desc}" for name, desc in personas)
        parts.append(f"Personas (set `agent` on an agent task to use one):\n{listing}")
    if persona:
        parts.append(persona)
    if instructions:
        parts.append(instructions)
    return "\n\n".join(parts)

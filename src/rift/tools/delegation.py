"""What a delegated task is: the `agent` tool's parsed arguments and the personas.

The core's sub-agent runner (core/loop/subagents.py) consumes both; they live with
the tools so that neither tools nor extensions import the core.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from rift.errors import ToolError

MAX_TASKS = 4


class ChildTask(Struct, frozen=True):
    description: str
    prompt: str
    model: str | None = None
    agent: str | None = None


class Persona(Struct, frozen=True):
    """A named role from `.rift/agents/<name>.md`: extra instructions, a model, a tool list."""

    name: str
    description: str
    body: str
    model: str | None = None
    tools: tuple[str, ...] | None = None


def parse_tasks(args: dict[str, Any]) -> list[ChildTask]:
    """The `tasks` list (1 to 4), or a lenient single {description, prompt} at the top level."""
    raw = args.get("tasks")
    if raw is None and "prompt" in args:
        raw = [args]
    if not isinstance(raw, list) or not raw:
        raise ToolError("agent needs 'tasks': a list of 1 to 4 {description, prompt} objects")
    if len(raw) > MAX_TASKS:
        raise ToolError(f"at most {MAX_TASKS} sub-agent tasks per call (got {len(raw)})")
    tasks = []
    for item in raw:
        fields = item if isinstance(item, dict) else {}
        text = {key: value for key, value in fields.items() if isinstance(value, str)}
        if not text.get("prompt", "").strip():
            raise ToolError("each sub-agent task needs a non-empty 'prompt'")
        described = text.get("description", "").strip() != ""
        description = text["description"] if described else "delegated task"
        tasks.append(ChildTask(description, text["prompt"], text.get("model"), text.get("agent")))
    return tasks

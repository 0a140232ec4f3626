"""plan: the agent's visible checklist for a multi-step task.

Writing the plan down keeps a small model on track across many tool calls,
and the front ends show it live (the turn loop emits a Plan event from
`ToolOutput.plan`).
"""

from __future__ import annotations

import json
from typing import Any

from rift.errors import ToolError
from rift.events import PlanItem
from rift.tools.base import Tool, ToolContext, ToolOutput, optional_int


def _steps(value: Any) -> list[str]:
    """`set` as a list of strings; a JSON-encoded or newline-separated string is accepted too."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = None
        value = parsed if isinstance(parsed, list) else value.splitlines()
    if not isinstance(value, list):
        raise ToolError("parameter 'set' must be a list of strings")
    return [str(item).strip() for item in value if str(item).strip()]


def render(items: list[PlanItem]) -> str:
    if not items:
        return "(plan is empty)"
    lines = [f"[{'x' if item.done else ' '}] {n}. {item.text}" for n, item in enumerate(items, 1)]
    return "Current plan:\n" + "\n".join(lines)


async def _run(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    new_steps = args.get("set")
    done = optional_int(args, "done")
    if new_steps is None and done is None:
        raise ToolError("plan needs 'set' (the list of steps) or 'done' (a 1-based step number)")
    items = list(ctx.plan.items)
    if new_steps is not None:
        items = [PlanItem(text=step, done=False) for step in _steps(new_steps)]
    if done is not None:
        if not 1 <= done <= len(items):
            raise ToolError(f"no step {done}: the plan has {len(items)} step(s)")
        items[done - 1] = PlanItem(text=items[done - 1].text, done=True)
    ctx.plan.items[:] = items
    return ToolOutput(ok=True, text=render(items), plan=list(items))


def _summary(args: dict[str, Any]) -> str:
    """How the checklist changes: "3 steps" for a new one, "done 2" for a checked step."""
    steps = args.get("set")
    if isinstance(steps, list):
        return f"{len(steps)} steps"
    done = args.get("done")
    return f"done {done}" if done is not None else ""


def _title(args: dict[str, Any]) -> str:
    return "Update the plan"


TOOL = Tool(
    name="plan",
    description="Track a multi-step task: set replaces the checklist, done checks off step N.",
    parameters={
        "type": "object",
        "properties": {
            "set": {"type": "array", "items": {"type": "string"}},
            "done": {"type": "integer", "description": "1-based step"},
        },
    },
    run=_run,
    kind="think",
    summary=_summary,
    title=_title,
)

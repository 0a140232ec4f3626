"""plan: the agent's visible checklist for a multi-step task.

Writing the plan down keeps a small model on track across many tool calls,
and the front ends show it live (the turn loop emits a Plan event from
`ToolOutput.plan`).
"""

from __future__ import annotations

from typing import Annotated, Any

from msgspec import Meta

from rift.errors import ToolError
from rift.events import PlanItem
from rift.tools.arguments import Args, from_args
from rift.tools.base import ToolContext, ToolOutput


def _steps(value: list[str]) -> list[str]:
    """`set`'s non-empty steps (a JSON-encoded or newline-separated string was made a list
    by the argument check, tools/arguments.py)."""
    return [item.strip() for item in value if item.strip()]


def render(items: list[PlanItem]) -> str:
    if not items:
        return "(plan is empty)"
    lines = [f"[{'x' if item.done else ' '}] {n}. {item.text}" for n, item in enumerate(items, 1)]
    return "Current plan:\n" + "\n".join(lines)


class PlanArgs(Args, frozen=True, kw_only=True):
    set: list[str] | None = None
    done: Annotated[int | None, Meta(description="1-based step")] = None


async def _run(args: PlanArgs, ctx: ToolContext) -> ToolOutput:
    new_steps, done = args.set, args.done
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


TOOL = from_args(
    _run,
    description="Track a multi-step task: set replaces the checklist, done checks off step N.",
    kind="think",
    summary=_summary,
    title=lambda args: "Update the plan",
)

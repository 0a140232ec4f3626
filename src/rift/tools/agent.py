"""`agent`: delegate 1 to 4 tasks to concurrent sub-agents (core/loop/subagents.py)."""

from __future__ import annotations

from typing import Any

from rift.errors import ToolError
from rift.tools.base import Tool, ToolContext, ToolOutput, optional_bool
from rift.tools.delegation import parse_tasks

NOT_HERE = "the agent tool is not available here (sub-agents cannot spawn further sub-agents)"


async def _run(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    runner = ctx.services.subagents
    if runner is None:
        raise ToolError(NOT_HERE)
    tasks = parse_tasks(args)
    report = await runner.run(tasks, optional_bool(args, "background"))
    return ToolOutput(not report.startswith("ERROR:"), report)


def _summary(args: dict[str, Any]) -> str:
    tasks = args.get("tasks")
    return f"{len(tasks)} sub-agent(s)" if isinstance(tasks, list) else ""


def _title(args: dict[str, Any]) -> str:
    count = _summary(args)
    return f"Delegate to {count}" if count else "Delegate to sub-agents"


TOOL = Tool(
    name="agent",
    description=(
        "Delegate independent tasks to 1-4 sub-agents that run concurrently and report back. "
        "Use for separable work (investigate one area while changing another); set background "
        "to let them run while you continue."
    ),
    parameters={
        "type": "object",
        "properties": {
            "tasks": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "description": {"type": "string"},
                        "prompt": {"type": "string"},
                        "model": {"type": "string"},
                        "agent": {"type": "string"},
                    },
                    "required": ["prompt"],
                },
            },
            "background": {"type": "boolean"},
        },
        "required": ["tasks"],
    },
    run=_run,
    kind="other",
    summary=_summary,
    title=_title,
    mutating=True,
)

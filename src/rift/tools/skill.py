"""`skill`: load a skill's instructions by name (the system prompt lists only names)."""

from __future__ import annotations

from typing import Any

from rift.errors import ToolError
from rift.tools.arguments import Args, schema, takes
from rift.tools.base import Tool, ToolContext, ToolOutput, arg_text


class SkillArgs(Args, frozen=True, kw_only=True):
    name: str


async def _run(args: SkillArgs, ctx: ToolContext) -> ToolOutput:
    name = args.name.strip()
    skills = ctx.services.skills
    skill = skills.get(name)
    if skill is None:
        available = ", ".join(sorted(skills)) or "(none)"
        raise ToolError(f"unknown skill '{name}'. Available skills: {available}")
    return ToolOutput(True, f"--- SKILL: {skill.name} ---\n{skill.body}")


def _summary(args: dict[str, Any]) -> str:
    return arg_text(args, "name")


def _title(args: dict[str, Any]) -> str:
    return f"Load skill {arg_text(args, 'name')}".rstrip()


TOOL = Tool(
    name="skill",
    description="Load a skill's full instructions by name.",
    parameters=schema(SkillArgs),
    run=takes(SkillArgs, _run),
    kind="other",
    summary=_summary,
    title=_title,
)

"""`skill`: load a skill's instructions by name (the system prompt lists only names)."""

from __future__ import annotations

from rift.errors import ToolError
from rift.tools.arguments import Args, from_args
from rift.tools.base import ToolContext, ToolOutput, titled


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


TOOL = from_args(
    _run,
    description="Load a skill's full instructions by name.",
    kind="other",
    title=titled("Load skill {}", "name", "Load skill"),
)

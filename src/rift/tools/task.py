"""`task`: list, read, feed and kill background tasks (bash run_in_background, sub-agents).

Input goes to a process's stdin, and the usual reader is a shell (`bash sh` in the
background, a REPL): a line fed to it runs like a bash command, so it passes the
same gate as one (deny and ask rules, approval) before it is written.
"""

from __future__ import annotations

from typing import Any

from rift.errors import ToolError
from rift.tools.arguments import Args, from_args
from rift.tools.base import ToolContext, ToolOutput


class TaskArgs(Args, frozen=True, kw_only=True):
    id: int | None = None
    input: str | None = None
    close_stdin: bool = False
    kill: bool = False


async def _run(args: TaskArgs, ctx: ToolContext) -> ToolOutput:
    tasks = ctx.services.tasks
    if tasks is None:
        raise ToolError("background tasks are not available here")
    task_id = args.id
    if task_id is None:
        return ToolOutput(True, tasks.describe())
    if args.kill:
        return ToolOutput(True, await tasks.kill(task_id))
    line = args.input
    if line is not None:
        refusal = await ctx.gate.authorize_bash(line) if line.strip() else None
        if refusal is not None:
            return ToolOutput(False, f"input to task #{task_id} not sent: {refusal}")
        return ToolOutput(True, await tasks.send_input(task_id, line))
    if args.close_stdin:
        return ToolOutput(True, tasks.close_stdin(task_id))
    return ToolOutput(True, tasks.read(task_id))


def _summary(args: dict[str, Any]) -> str:
    """Which task and what is done to it: "#2 kill", "#2 input: y", "list" for no id."""
    task_id = args.get("id")
    if task_id is None or task_id == "":
        return "list"
    if args.get("kill") in (True, "true"):
        return f"#{task_id} kill"
    line = args.get("input")
    if isinstance(line, str):
        return f"#{task_id} input: {line.strip()}"
    if args.get("close_stdin") in (True, "true"):
        return f"#{task_id} close stdin"
    return f"#{task_id}"


def _title(args: dict[str, Any]) -> str:
    what = _summary(args)
    return "List background tasks" if what == "list" else f"Task {what}"


TOOL = from_args(
    _run,
    description=(
        "Manage background tasks. No id lists them; an id shows status and output; "
        "input sends a line to its stdin; close_stdin sends EOF; kill stops it."
    ),
    kind="other",
    summary=_summary,
    title=_title,
)

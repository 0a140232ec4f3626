"""ls: one directory's entries, directories marked with a trailing slash.

Entries a deny rule covers are left out, so the listing never advertises a
file the model is not allowed to read.
"""

from __future__ import annotations

import os

from rift.errors import ToolError
from rift.tools.arguments import Args, from_args
from rift.tools.base import ToolContext, ToolOutput, capped, not_found_message, titled

MAX_ENTRIES = 1000


class LsArgs(Args, frozen=True, kw_only=True):
    path: str = "."


async def _run(args: LsArgs, ctx: ToolContext) -> ToolOutput:
    raw = args.path
    path = ctx.readable(ctx.resolve(raw))
    if not path.exists():
        raise ToolError(not_found_message(ctx.cwd, raw, ctx.gate))
    if not path.is_dir():
        raise ToolError(f"{raw} is a file, not a directory; use read to see it")
    try:
        with os.scandir(path) as it:
            found = sorted(it, key=lambda entry: entry.name)
    except OSError as exc:
        raise ToolError(f"cannot list {raw}: {exc.strerror or exc}") from exc
    names: list[str] = []
    for entry in found:
        if ctx.gate.check_read(path / entry.name) is not None:
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        names.append(entry.name + "/" if is_dir else entry.name)
    if not names:
        return ToolOutput(ok=True, text="(empty directory)")
    over = "\n[{more} more entries not shown; use glob to narrow]"
    return ToolOutput(ok=True, text=capped(names, MAX_ENTRIES, over))


TOOL = from_args(
    _run,
    description="List a directory (default: the project root); directories end with /.",
    kind="read",
    title=titled("List {}", "path", "List ."),
)

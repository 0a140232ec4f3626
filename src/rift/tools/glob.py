"""glob: find files by path pattern.

`*` may cross `/` (so `*.py` finds Python files at any depth, which is what
models mean), and the pattern is matched against the path relative to the
search root. The walk is grep's: gitignored, hidden, node_modules and denied
entries are skipped.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from rift.errors import ToolError
from rift.tools.arguments import Args, schema, takes
from rift.tools.base import Tool, ToolContext, ToolOutput, arg_text, not_found_message
from rift.tools.grep import glob_to_regex, walk_files

MAX_RESULTS = 200


def _matches(root: Path, regex: re.Pattern[str], ctx: ToolContext) -> list[str]:
    found: list[str] = []
    for path in walk_files(root, ctx.gate, ctx.cwd):
        if regex.fullmatch(path.relative_to(root).as_posix()):
            try:
                found.append(path.relative_to(ctx.cwd).as_posix())
            except ValueError:
                found.append(str(path))
    return sorted(found)


class GlobArgs(Args, frozen=True, kw_only=True):
    pattern: str
    path: str = "."


async def _run(args: GlobArgs, ctx: ToolContext) -> ToolOutput:
    pattern, raw = args.pattern.strip(), args.path
    root = ctx.resolve(raw)
    denied = ctx.gate.check_read(root)
    if denied is not None:
        raise ToolError(denied)
    if not root.is_dir():
        if root.exists():
            raise ToolError(f"{raw} is a file, not a directory")
        raise ToolError(not_found_message(ctx.cwd, raw, ctx.gate))
    while pattern.startswith("./"):
        pattern = pattern[2:]
    if not pattern:
        raise ToolError("pattern is empty")
    regex = re.compile(glob_to_regex(pattern, star_crosses_slash=True, braces=True), re.DOTALL)
    found = await asyncio.to_thread(_matches, root, regex, ctx)
    if not found:
        return ToolOutput(ok=True, text="no files matched")
    text = "\n".join(found[:MAX_RESULTS])
    if len(found) > MAX_RESULTS:
        text += f"\n[{len(found)} files matched, first {MAX_RESULTS} shown; narrow the pattern]"
    return ToolOutput(ok=True, text=text)


def _summary(args: dict[str, Any]) -> str:
    return arg_text(args, "pattern")


def _title(args: dict[str, Any]) -> str:
    pattern, path = arg_text(args, "pattern"), arg_text(args, "path")
    return f"Find {pattern or 'files'}" + (f" in {path}" if path else "")


TOOL = Tool(
    name="glob",
    description="Find files by glob, e.g. **/*.py or src/*test*; * may cross directories.",
    parameters=schema(GlobArgs),
    run=takes(GlobArgs, _run),
    kind="search",
    summary=_summary,
    title=_title,
)

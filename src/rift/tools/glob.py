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
from rift.tools.arguments import Args, from_args
from rift.tools.base import (
    ToolContext,
    ToolOutput,
    arg_text,
    capped,
    in_path,
    not_found_message,
)
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
    root = ctx.readable(ctx.resolve(raw))
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
    over = "\n[{total} files matched, first {cap} shown; narrow the pattern]"
    return ToolOutput(ok=True, text=capped(found, MAX_RESULTS, over))


def _title(args: dict[str, Any]) -> str:
    return f"Find {arg_text(args, 'pattern') or 'files'}{in_path(args)}"


TOOL = from_args(
    _run,
    description="Find files by glob, e.g. **/*.py or src/*test*; * may cross directories.",
    kind="search",
    title=_title,
)

"""outline: a file's classes, functions and methods with line numbers, no bodies.

The cheapest way for a model to find its way around a big file: it reads the
skeleton, then reads only the range it needs. Deny rules for reading apply.
"""

from __future__ import annotations

from rift.errors import ToolError
from rift.tools import _outline
from rift.tools.arguments import Args, from_args
from rift.tools.base import ToolContext, ToolOutput, titled
from rift.tools.read import load_text


class OutlineArgs(Args, frozen=True, kw_only=True):
    path: str


async def _run(args: OutlineArgs, ctx: ToolContext) -> ToolOutput:
    raw = args.path
    path = ctx.resolve(raw)
    if not _outline.supported(path):
        kinds = " ".join(sorted(_outline.EXTENSIONS))
        raise ToolError(f"outline supports {kinds} files, not {raw}; use read instead")
    text = await load_text(raw, ctx)
    symbols = _outline.outline(path, text)
    if symbols is None:
        raise ToolError(f"cannot outline {raw} (no parser for it here, or a syntax error)")
    return ToolOutput(ok=True, text=_outline.render(symbols))


TOOL = from_args(
    _run,
    description="List a source file's classes and functions with line numbers (no bodies).",
    kind="read",
    title=titled("Outline {}", "path", "Outline a file"),
)

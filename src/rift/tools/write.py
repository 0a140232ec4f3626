"""write: create or overwrite a whole file.

The prior bytes are snapshotted before anything else: a file that cannot be
snapshotted cannot be undone, so the write is refused. The gate then decides
(and may, through an edit review, accept only part of the proposal); the
journal records the prior bytes before the first byte hits disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rift.core.lsp import diagnostics_after_edit
from rift.errors import ToolError
from rift.tools.base import (
    AppliedEdit,
    Tool,
    ToolContext,
    ToolOutput,
    WriteVerdict,
    is_binary,
    require_str,
)
from rift.tools.hooks import run_post_edit_hooks

PARTIAL_NOTE = (
    "\nNOTE: the user accepted only part of this change; re-read {path} before editing it again."
)


def snapshot(path: Path, raw: str) -> bytes | None:
    """The file's bytes before the change; None when it does not exist yet."""
    if path.is_dir():
        raise ToolError(f"{raw} is a directory")
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ToolError(f"cannot snapshot {raw} before changing it: {exc}") from exc


async def apply_change(
    ctx: ToolContext, raw: str, path: Path, prior: bytes | None, verdict: WriteVerdict
) -> str:
    """Journal, write, then LSP diagnostics and hooks; returns what to append to the result
    ("" when the language server found nothing new and all hooks pass).

    Shared by write and edit, which differ only in how they build the new text.
    """
    ctx.journal.record(path, prior)
    fs: Any = ctx.extras.get("fs")  # an editor that owns the buffers (ACP), else the disk
    try:
        if fs is not None:
            await fs.write_text(path, verdict.content)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(verdict.content.encode("utf-8"))
    except OSError as exc:
        raise ToolError(f"cannot write {raw}: {exc.strerror or exc}") from exc
    old = None if prior is None else prior.decode("utf-8", errors="replace")
    diagnostics = await diagnostics_after_edit(ctx.extras, path, raw, old, verdict.content)
    return diagnostics + await run_post_edit_hooks(ctx)


def _diff_base(prior: bytes | None, old: str | None) -> str:
    """What the edit_diff compares against: nothing for a new or binary file."""
    if prior is None or old is None or is_binary(prior):
        return ""
    return old


async def _run(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    raw = require_str(args, "path")
    content = require_str(args, "content")
    path = ctx.resolve(raw)
    prior = snapshot(path, raw)
    # A binary prior still reaches the gate decoded: its NUL bytes tell the gate
    # to ask plainly ("overwriting a binary file") instead of showing a diff.
    old = None if prior is None else prior.decode("utf-8", errors="replace")
    verdict = await ctx.gate.authorize_write("write", path, old, content)
    if not verdict.allowed:
        return ToolOutput(ok=False, text=verdict.message)
    hooks = await apply_change(ctx, raw, path, prior, verdict)
    size = len(verdict.content.encode("utf-8"))
    text = f"Wrote {size} bytes to {raw}"
    if verdict.partial:
        text += PARTIAL_NOTE.format(path=raw)
    return ToolOutput(
        ok=True,
        text=text + hooks,
        edit=AppliedEdit(path=raw, old=_diff_base(prior, old), new=verdict.content),
    )


TOOL = Tool(
    name="write",
    description="Create or overwrite a file with the given content. Prefer edit for small changes.",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
    run=_run,
    mutating=True,
)

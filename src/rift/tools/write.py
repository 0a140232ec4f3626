"""write: create or overwrite a whole file.

The path is resolved once and that resolved path is what is checked, snapshotted,
written and journaled, so undo acts on exactly the file that changed. A file that
cannot be snapshotted cannot be undone, so the write is refused. The bytes go to
disk through rift/fs/safe_fs.py (no symlink followed after the check, atomic).
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from rift.errors import ToolError
from rift.fs import safe_fs
from rift.tools import guard, leftovers, protected, splice
from rift.tools.arguments import Args, from_args
from rift.tools.base import (
    AppliedEdit,
    ToolContext,
    ToolOutput,
    WriteVerdict,
    is_binary,
    titled,
)
from rift.tools.encoding_keep import kept_bytes
from rift.tools.hooks import run_post_edit_hooks

PARTIAL_NOTE = (
    "\nNOTE: the user accepted only part of this change; re-read {path} before editing it again."
)


def snapshot(path: Path, raw: str) -> bytes | None:
    """The bytes of `path` (resolved) before the change; None when it does not exist yet.
    Only a regular file is read, without following a symlink swapped in after the check."""
    try:
        return safe_fs.read_prior(path)
    except IsADirectoryError as exc:
        raise ToolError(f"{raw} is a directory") from exc
    except OSError as exc:
        raise ToolError(f"cannot snapshot {raw} before changing it: {exc.strerror or exc}") from exc


async def apply_change(
    ctx: ToolContext, raw: str, path: Path, prior: bytes | None, verdict: WriteVerdict
) -> str:
    """Journal, write, then LSP diagnostics and hooks (shared by write and edit); returns
    what to append to the result ("" when nothing new was found and all hooks pass)."""
    fs = ctx.services.files  # an editor that owns the buffers (ACP), else the disk
    written: safe_fs.FileId | None = None
    try:
        if fs is not None:
            await fs.write_text(path, verdict.content)
        else:
            written = safe_fs.write_atomic(path, kept_bytes(prior, verdict.content))
    except OSError as exc:
        raise ToolError(f"cannot write {raw}: {exc.strerror or exc}") from exc
    ctx.journal.record(path, prior)
    ctx.journal.wrote(path, written)
    old = None if prior is None else prior.decode("utf-8", errors="replace")
    lsp = ctx.services.diagnostics
    diagnostics = "" if lsp is None else await lsp.report(path, raw, old, verdict.content)
    hooks = await run_post_edit_hooks(ctx)
    if written is not None:  # a post-edit hook (a formatter) may have rewritten it: still ours
        with contextlib.suppress(OSError):
            ctx.journal.wrote(path, safe_fs.current_id(path))
    return diagnostics + hooks


async def authorize(
    ctx: ToolContext, tool: str, raw: str, path: Path, old: str | None, new: str
) -> WriteVerdict:
    """The gate's verdict on `tool` turning `old` (None: no file) into `new` at `path`,
    once a file that runs later (tools/protected.py) is one the task names."""
    what = protected.require_named_if_runs_later(
        tool, raw, ctx.cwd, path, new, ctx.services.task_words
    )
    return await ctx.gate.authorize_write(tool, path, old, new, runs_later=what)


def changed(raw: str, text: str, hooks: str, old: str, verdict: WriteVerdict) -> ToolOutput:
    """A write or edit's result once on disk: `text`, the note for a partly accepted
    review, what `apply_change` reported; its edit diffs `old` against what was written."""
    if verdict.partial:
        text += PARTIAL_NOTE.format(path=raw)
    edit = AppliedEdit(path=raw, old=old, new=verdict.content)
    return ToolOutput(ok=True, text=text + hooks, edit=edit)


def _diff_base(prior: bytes | None, old: str | None) -> str:
    """What the edit_diff compares against: nothing for a new or binary file."""
    if prior is None or old is None or is_binary(prior):
        return ""
    return old


def _same_code(new: str, old: str) -> bool:
    """Equal but for blank lines and trailing spaces: a small model wrote the file back with
    a blank line dropped and said it had added a function."""

    def lines(text: str) -> list[str]:
        return [line.rstrip() for line in text.split("\n") if line.strip()]

    return lines(new) == lines(old)


def refusal(ctx: ToolContext, raw: str, path: Path, old: str | None, content: str) -> str | None:
    """Why this whole-file write must not happen (tools/guard.py), as advice; None if it may.

    Under strict rules (`ctx.services.edit_rules`, a small model's) an existing file
    longer than a few lines is changed with edit, since whole-file rewrites are where
    small models damage files; an unchanged write is refused so the model learns that
    nothing happened.
    """
    rules = ctx.services.edit_rules
    small = rules.strict
    problem = guard.content_problem(content, old or "", "write", path, small)
    if problem is not None:
        return problem
    if small and old and old.strip() and not content.strip():
        return (
            f"write refused: the content is empty, and {raw} has {old.count(chr(10))} lines; "
            "write would erase them. To change the file, use edit."
        )
    if small and old is not None and _same_code(content, old):
        return (
            f"write refused: the content is {raw}'s current text (at most blank lines or "
            "spacing differ), so nothing would change. Make the change the task asks for; "
            "for an existing file, use edit." + guard.trace_hint(ctx.services.task_words, old)
        )
    if small and old is not None and content != old and old.count("\n") > rules.rewrite_lines:
        return (
            f"write refused: {raw} already exists ({old.count(chr(10))} lines), and write would "
            "replace all of it. Use edit instead: old_string = the exact lines to change, copied "
            "from read without the line numbers; new_string = those lines as they should be."
        )
    words = ctx.services.task_words
    lost = leftovers.dropped_definitions(old, content, words) if small and old else []
    if lost and path.suffix == ".py":
        return (
            f"write refused: the content leaves out {', '.join(f'`{n}`' for n in lost[:4])} of "
            f"{raw}, which the task does not ask to remove; the file was left unchanged. Send "
            "the whole file, every line, with only what the task needs changed."
        )
    dead = guard.code_defects("write", raw, path, old, content) if small else None
    if dead is not None:
        return dead
    error = guard.breaks_syntax(path, old, content)
    return None if error is None else guard.syntax_refusal("write", raw, path, error)


def _kept_definitions(ctx: ToolContext, old: str, content: str, note: str) -> tuple[str, str]:
    """A small model's rewrite that holds only the definitions it changed, with the file's
    other definitions kept (tools/splice.py); unchanged when it drops nothing, or when it
    is more than definitions and imports (the refusal below then explains)."""
    words = ctx.services.task_words
    if not leftovers.dropped_definitions(old, content, words):
        return content, note
    spliced = splice.splice_definitions(old, content)
    if spliced is None or leftovers.dropped_definitions(old, spliced, words):
        return content, note
    return spliced, note + " (the content held only some definitions; the rest were kept)"


class WriteArgs(Args, frozen=True, kw_only=True):
    path: str
    content: str


async def _run(args: WriteArgs, ctx: ToolContext) -> ToolOutput:
    small = ctx.services.edit_rules.strict  # its `repo/x.py` means x.py (guard.py)
    raw, note = guard.project_relative(ctx.cwd, args.path, overwrite=not small)
    content = args.content
    path = safe_fs.resolve(ctx.resolve(raw))
    protected.require_changeable(
        "write", raw, ctx.cwd, path, ctx.services.task_words, ctx.services.locked_tests
    )
    prior = snapshot(path, raw)
    content = guard.strip_debris(content, path, small)
    # A binary prior still reaches the gate decoded: its NUL bytes tell the gate
    # to ask plainly ("overwriting a binary file") instead of showing a diff.
    old = None if prior is None else prior.decode("utf-8", errors="replace")
    if small and old and path.suffix == ".py" and prior is not None and not is_binary(prior):
        content, note = _kept_definitions(ctx, old, content, note)
    refused = refusal(ctx, raw, path, None if prior is None or is_binary(prior) else old, content)
    if refused is not None:
        return ToolOutput(ok=False, text=refused)
    verdict = await authorize(ctx, "write", raw, path, old, content)
    if not verdict.allowed:
        return ToolOutput(ok=False, text=verdict.message)
    hooks = await apply_change(ctx, raw, path, prior, verdict)
    size = len(verdict.content.encode("utf-8"))
    text = f"Wrote {size} bytes to {raw}{note}"
    undone = leftovers.leftover_note(raw, old, verdict.content) if path.suffix == ".py" else ""
    return changed(raw, text + undone, hooks, _diff_base(prior, old), verdict)


TOOL = from_args(
    _run,
    description="Create or overwrite a file with the given content. Prefer edit for small changes.",
    kind="edit",
    title=titled("Write {}", "path", "Write a file"),
    asks=True,
    mutating=True,
)

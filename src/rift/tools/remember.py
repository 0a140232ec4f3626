"""remember: keep a fact about this project for every later session.

Facts land in `.rift/memory.md`, which the system prompt reads, so they stay short
and few: a line each, exact duplicates refused, the file capped. The change is gated
as an edit of that file and journaled for /undo. A memory file that is a symlink out
of the project, or that the Read rules deny, is never read: the duplicate check would
make it an oracle and the append would copy it into the prompt.
"""

from __future__ import annotations

from typing import ClassVar

from rift.errors import ToolError
from rift.fs import safe_fs
from rift.fs.paths import MEMORY_FILE, contained_file
from rift.tools.arguments import Args, from_args
from rift.tools.base import ToolContext, ToolOutput, titled
from rift.tools.write import snapshot

ENTRY_CAP = 500
FILE_CAP = 16_384


def _fact(value: str) -> str:
    fact = " ".join(value.split())
    if not fact:
        raise ToolError("parameter 'fact' is empty")
    if len(fact) > ENTRY_CAP:
        raise ToolError(
            f"a memory entry is at most {ENTRY_CAP} characters ({len(fact)} given);"
            " state the fact in one short line"
        )
    return fact


class RememberArgs(Args, frozen=True, kw_only=True):
    fact: str
    aliases: ClassVar[dict[str, str]] = {"text": "fact"}
    """"text" is what the issue called it."""


async def _run(args: RememberArgs, ctx: ToolContext) -> ToolOutput:
    fact = _fact(args.fact)
    path = ctx.cwd / MEMORY_FILE
    if (path.exists() or path.is_symlink()) and contained_file(path, ctx.cwd) is None:
        # A repository's `memory.md -> ~/notes` must not be read (an oracle) or copied in.
        raise ToolError(f"{MEMORY_FILE} is not a regular file inside the project; not touching it")
    path = ctx.readable(safe_fs.resolve(path))
    prior = snapshot(path, str(MEMORY_FILE))
    old = "" if prior is None else prior.decode("utf-8", errors="replace")
    entries = {line[2:].strip() for line in old.splitlines() if line.startswith("- ")}
    if fact in entries:
        return ToolOutput(ok=True, text=f"already remembered: {fact}")
    base = old if not old or old.endswith("\n") else old + "\n"
    new = f"{base}- {fact}\n"
    if len(new.encode("utf-8")) > FILE_CAP:
        raise ToolError(
            f"{MEMORY_FILE} would exceed {FILE_CAP} bytes; prune outdated entries"
            " (edit the file) before remembering more"
        )
    verdict = await ctx.gate.authorize_write("edit", path, old if prior is not None else None, new)
    if not verdict.allowed:
        return ToolOutput(ok=False, text=verdict.message)
    try:
        written = safe_fs.write_atomic(path, verdict.content.encode("utf-8"))
    except OSError as exc:
        raise ToolError(f"cannot write {MEMORY_FILE}: {exc.strerror or exc}") from exc
    ctx.journal.record(path, prior)
    ctx.journal.wrote(path, written)
    return ToolOutput(ok=True, text=f"remembered in {MEMORY_FILE}: {fact}")


TOOL = from_args(
    _run,
    description=(
        "Save one short, durable fact about this project (build command, convention) "
        "for future sessions."
    ),
    kind="other",
    title=titled("Remember: {}", "fact", "Remember a fact"),
)

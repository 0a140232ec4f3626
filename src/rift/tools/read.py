"""read: a text file, line-numbered, a window at a time.

Line numbers let the model quote exact locations and pick the next window;
the byte cap keeps one read from flooding a small context. Deny rules are
checked before the file is touched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rift.errors import ToolError
from rift.fs import safe_fs
from rift.tools import _outline, guard
from rift.tools.arguments import Args, from_args
from rift.tools.base import ToolContext, ToolOutput, arg_text, is_binary, not_found_message

DEFAULT_LIMIT = 2000
LINE_CAP = 2000
OUTPUT_CAP = 50_000
OUTLINE_THRESHOLD = 500
"""An unbounded read of a longer source file returns its outline instead,
so one read cannot fill a small context."""


def split_lines(text: str) -> list[str]:
    """Lines as a text editor counts them: split on \\n, a trailing \\r dropped."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


async def load_text(raw: str, ctx: ToolContext) -> str:
    """The file's text after the deny check; ToolError for directories, binaries, ENOENT.

    The resolved path is checked and then opened without following a symlink swapped
    in since (rift/fs/safe_fs.py); only a regular file is read, up to a cap, so a FIFO
    cannot hang the turn and /dev/zero cannot fill memory."""
    path = ctx.readable(safe_fs.resolve(ctx.resolve(raw)))
    if path.is_dir():
        raise ToolError(f"{raw} is a directory; use ls to list it")
    fs = ctx.services.files  # an editor that owns the buffers (ACP), else the disk
    try:
        if fs is None:
            data, info = safe_fs.read_regular(path)
            denied = ctx.gate.check_opened(path, info)  # a hard link to a denied file
            if denied is not None:
                raise ToolError(denied)
        else:
            data = (await fs.read_text(path)).encode("utf-8")
    except FileNotFoundError as exc:
        raise ToolError(not_found_message(ctx.cwd, raw, ctx.gate)) from exc
    except IsADirectoryError as exc:
        raise ToolError(f"{raw} is a directory; use ls to list it") from exc
    except OSError as exc:
        raise ToolError(f"cannot read {raw}: {exc.strerror or exc}") from exc
    if is_binary(data):
        raise ToolError(f"{raw} is a binary file; read shows text files only")
    return data.decode("utf-8", errors="replace")


def _render(lines: list[str], offset: int, limit: int) -> str:
    """Lines `offset`.. (at most `limit`, and OUTPUT_CAP bytes) with their numbers: without
    them a small model's edits get worse, and the prefixes it copies are stripped by edit."""
    total = len(lines)
    end = min(offset - 1 + limit, total)
    parts: list[str] = []
    size = 0
    last = offset - 1
    capped = False
    for n in range(offset, end + 1):
        line = lines[n - 1]
        if len(line) > LINE_CAP:
            line = line[:LINE_CAP] + "… [line cut]"
        entry = f"{n:>5}\t{line}\n"
        size += len(entry.encode("utf-8"))
        if size > OUTPUT_CAP and parts:
            capped = True
            break
        parts.append(entry)
        last = n
    text = "".join(parts)
    if capped:
        text += f"\n[output stopped at {OUTPUT_CAP} bytes]"
    if last < total:
        text += f"\n(showing lines {offset}-{last} of {total}; continue with offset={last + 1})"
    return text


def _outline_instead(raw: str, path: Path, lines: list[str]) -> str | None:
    """The outline of a big source file (OUTLINE_THRESHOLD), with how to read the part
    that matters."""
    if len(lines) <= OUTLINE_THRESHOLD or not _outline.supported(path):
        return None
    symbols = _outline.outline(path, "\n".join(lines))
    if not symbols:
        return None
    return (
        f"{raw} has {len(lines)} lines; its outline follows. Read the part you need with"
        f" offset and limit (e.g. offset={symbols[0].line} limit=100).\n\n"
        + _outline.render(symbols)
    )


class ReadArgs(Args, frozen=True, kw_only=True):
    path: str
    offset: int | None = None
    limit: int | None = None


async def _run(args: ReadArgs, ctx: ToolContext) -> ToolOutput:
    # `repo/x.py` inside `repo/` read as x.py, silently: a note here could be copied
    # into the file by a model that writes read output back; edit and write say it.
    raw, _ = guard.project_relative(ctx.cwd, args.path)
    unbounded = args.offset is None and args.limit is None
    offset = max(args.offset or 1, 1)
    limit = max(args.limit or DEFAULT_LIMIT, 1)
    text = await load_text(raw, ctx)
    if not text:
        return ToolOutput(ok=True, text="(empty file)\n")
    lines = split_lines(text)
    if unbounded and (skeleton := _outline_instead(raw, ctx.resolve(raw), lines)) is not None:
        return ToolOutput(ok=True, text=skeleton)
    if offset > len(lines):
        raise ToolError(f"offset {offset} is past the end of {raw} ({len(lines)} lines)")
    return ToolOutput(ok=True, text=_render(lines, offset, limit))


def _title(args: dict[str, Any]) -> str:
    path, offset = arg_text(args, "path"), args.get("offset")
    if not path:
        return "Read a file"
    return f"Read {path}" + (f" (from line {offset})" if offset else "")


TOOL = from_args(
    _run,
    description=(
        "Read a text file with line numbers. "
        "For large files pass offset (1-based line) and limit (default 2000)."
    ),
    kind="read",
    title=_title,
)

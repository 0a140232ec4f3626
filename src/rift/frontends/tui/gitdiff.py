"""The working tree's `git diff`, for the live diff pane and /diff."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rift.gitcmd import git_argv

MAX_BYTES = 400_000


async def git_diff(cwd: Path) -> str:
    """Changes against HEAD (staged and unstaged), or against the index before a first commit.

    Returns a readable line in parentheses when git cannot answer.
    """
    try:
        code, out, err = await _git(cwd, "HEAD")
        if code != 0:
            code, out, err = await _git(cwd)
    except OSError as exc:
        return f"(git is not available: {exc.strerror or exc})"
    if code != 0:
        first = err.decode("utf-8", "replace").strip().splitlines()
        return f"(no git diff: {first[0] if first else 'not a git repository'})"
    text = out[:MAX_BYTES].decode("utf-8", "replace")
    if len(out) > MAX_BYTES:
        text += f"\n… [diff truncated at {MAX_BYTES} bytes]"
    return text


async def _git(cwd: Path, *rev: str) -> tuple[int, bytes, bytes]:
    proc = await asyncio.create_subprocess_exec(
        *git_argv("diff", "--no-color", *rev),
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    return proc.returncode or 0, out, err

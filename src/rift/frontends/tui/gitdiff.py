"""The working tree's `git diff`, new untracked files included, for the live diff pane and /diff."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from rift.fs.gitcmd import GitRefused, run_git

MAX_BYTES = 400_000
MAX_UNTRACKED = 50
"""New files shown in full at most; past this many the rest are listed by name."""


async def git_diff(cwd: Path) -> str:
    """Changes against HEAD (or the index before a first commit), then every new file git
    does not ignore; a readable line in parentheses when git cannot answer."""
    code, out, err = await _git(cwd, "diff", "--no-color", "HEAD")
    if code != 0:
        code, out, err = await _git(cwd, "diff", "--no-color")
    if code == 0:
        out += await _untracked(cwd)
    if code != 0:
        first = err.decode("utf-8", "replace").strip().splitlines()
        return f"(no git diff: {first[0] if first else 'not a git repository'})"
    text = out[:MAX_BYTES].decode("utf-8", "replace")
    if len(out) > MAX_BYTES:
        text += f"\n… [diff truncated at {MAX_BYTES} bytes]"
    return text


async def _untracked(cwd: Path) -> bytes:
    code, out, _ = await _git(cwd, "ls-files", "--others", "--exclude-standard", "-z")
    if code != 0:
        return b""
    names = [n for n in out.decode("utf-8", "replace").split("\0") if n]
    chunks: list[bytes] = []
    for name in names[:MAX_UNTRACKED]:
        # --no-index exits 1 when the files differ, which they always do here
        _, diff, _ = await _git(cwd, "diff", "--no-color", "--no-index", "--", "/dev/null", name)
        chunks.append(diff)
        if sum(map(len, chunks)) > MAX_BYTES:
            break
    if len(names) > MAX_UNTRACKED:
        rest = ", ".join(names[MAX_UNTRACKED:])
        chunks.append(f"… and {len(names) - MAX_UNTRACKED} more new files: {rest}\n".encode())
    return b"".join(chunks)


async def _git(cwd: Path, *args: str) -> tuple[int, bytes, bytes]:
    """git through `rift.fs.gitcmd.run_git` (no repository-configured commands, no API
    keys); a refused `.git` or a git that cannot run reads as a failed call."""
    try:
        done = await asyncio.to_thread(run_git, cwd, *args, timeout=30)
    except (GitRefused, OSError, subprocess.SubprocessError) as exc:
        return 1, b"", str(exc).encode()
    return done.returncode, done.stdout, done.stderr

"""The editor as rift's filesystem and terminal (ACP `fs/*` and `terminal/*`), so rift
reads the editor's buffers, unsaved changes included, and runs commands where the
person can watch; failures come back as `OSError`, which the tools already report.

The editor is sent the path rift's rules checked (`os.path.realpath`: symlinks
resolved, then `..` folded), never the path as the model wrote it: an editor
that folds `lnk/../secrets/key.txt` as text (Node's `path.resolve`) would open
a different file than the one the rules allowed."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from pathlib import Path

from acp import RequestError
from acp.interfaces import Client

from rift.fs import safe_fs

log = logging.getLogger("rift.acp")

TERMINAL_OUTPUT_BYTES = 256 * 1024
"""What the editor keeps of a command's output (the tail); bash trims it further."""


def _checked(path: Path) -> str:
    """The path as the permission rules saw it (core/permissions/rules.canonical)."""
    return os.path.realpath(path)


class EditorFs:
    """`read_text` / `write_text` through the editor where it offers them, else the disk."""

    def __init__(self, client: Client, session_id: str, *, can_read: bool, can_write: bool) -> None:
        self._client = client
        self._session_id = session_id
        self.can_read = can_read
        self.can_write = can_write

    async def read_text(self, path: Path) -> str:
        if not self.can_read:
            return path.read_bytes().decode("utf-8", errors="replace")
        try:
            response = await self._client.read_text_file(
                session_id=self._session_id, path=_checked(path)
            )
        except (RequestError, ConnectionError) as exc:
            if not path.exists():
                raise FileNotFoundError(2, "No such file or directory", str(path)) from exc
            raise OSError(f"the editor could not read {path}: {exc}") from exc
        return response.content

    async def write_text(self, path: Path, content: str) -> None:
        """Write `path`, the path the gate checked and the person approved (write/edit pass
        it resolved). It is never resolved again here: a folder swapped for a symlink while
        the person was asked would otherwise carry the write outside the project. The
        fallback goes through safe_fs, which refuses a component that became a link."""
        approved = os.path.abspath(path)
        if not self.can_write:
            safe_fs.write_atomic(Path(approved), content.encode("utf-8"))
        else:
            try:
                await self._client.write_text_file(
                    session_id=self._session_id, path=approved, content=content
                )
            except (RequestError, ConnectionError) as exc:
                raise OSError(f"the editor could not write {path}: {exc}") from exc


class EditorTerminal:
    """`run(command, cwd, timeout) -> (exit code, output)` in an editor terminal; the exit
    code is None when the command ran past `timeout` and was killed."""

    def __init__(self, client: Client, session_id: str, on_start: Callable[[str], None]) -> None:
        self._client = client
        self._session_id = session_id
        self._on_start = on_start

    async def run(self, command: str, cwd: Path, timeout: float) -> tuple[int | None, str]:
        sid = self._session_id
        try:
            created = await self._client.create_terminal(
                session_id=sid,
                command="sh",
                args=["-c", command],
                cwd=str(cwd),
                output_byte_limit=TERMINAL_OUTPUT_BYTES,
            )
        except (RequestError, ConnectionError) as exc:
            raise OSError(f"the editor could not start a terminal: {exc}") from exc
        terminal_id = created.terminal_id
        self._on_start(terminal_id)
        try:
            return await self._finish(terminal_id, timeout)
        except (RequestError, ConnectionError) as exc:
            raise OSError(f"the editor's terminal failed: {exc}") from exc
        finally:  # also on cancel: releasing kills the command if it still runs
            with contextlib.suppress(RequestError, ConnectionError):
                await asyncio.shield(
                    self._client.release_terminal(session_id=sid, terminal_id=terminal_id)
                )

    async def _finish(self, terminal_id: str, timeout: float) -> tuple[int | None, str]:
        sid = self._session_id
        code: int | None
        try:
            status = await asyncio.wait_for(
                self._client.wait_for_terminal_exit(session_id=sid, terminal_id=terminal_id),
                timeout,
            )
        except TimeoutError:
            await self._client.kill_terminal(session_id=sid, terminal_id=terminal_id)
            code, note = None, ""
        else:
            code = status.exit_code
            note = ""
            if code is None:  # ended by a signal
                code, note = -1, f"\n[killed by signal {status.signal or '?'}]"
        output = await self._client.terminal_output(session_id=sid, terminal_id=terminal_id)
        text = output.output + note
        if output.truncated:
            text = "[earlier output dropped by the editor]\n" + text
        return code, text

"""`/config edit` in the TUI: the user config in the person's own editor, then reloaded.

Only the TUI owns a terminal it can lend (serve and ACP only name the file)."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import SuspendNotSupported

from rift.config.load import ensure_user_config
from rift.errors import RiftError

if TYPE_CHECKING:
    from rift.frontends.tui.host import CommandHost

EDIT_WORDS = ("edit", "open")


async def config(app: CommandHost, arg: str) -> None:
    """`/config [reload|edit]`: `edit` (or `open`) runs the editor here; the rest the owner."""
    from rift.core import BY_NAME

    conversation = app.require_conversation()
    if arg.strip() not in EDIT_WORDS:
        BY_NAME["config"].run(conversation, arg)
        return
    settings = app.driver.config
    path, created = ensure_user_config(settings)
    if created:
        app.say(f"created {path} with commented examples", "info")
    if not settings.editor:
        app.say(
            f'no editor set: export VISUAL or EDITOR (or set "editor" in {path}),'
            " or edit the file yourself and run /config reload",
            "warning",
        )
        return
    status = _run_editor(app, [*shlex.split(settings.editor), str(path)])
    if status != 0:
        app.say(f"the editor exited with status {status}; reloading what it saved", "warning")
    BY_NAME["config"].run(conversation, "reload")


def _run_editor(app: CommandHost, argv: list[str]) -> int:
    """Run the editor in the foreground with the terminal handed over; its exit status."""
    try:
        with app.suspend():
            return _wait(argv)
    except SuspendNotSupported:  # headless (tests) or a browser: no terminal to hand over
        return _wait(argv, stdin=subprocess.DEVNULL)


def _wait(argv: list[str], stdin: int | None = None) -> int:
    try:
        return subprocess.run(argv, stdin=stdin, check=False).returncode
    except OSError as exc:
        raise RiftError(f"could not start the editor {Path(argv[0]).name}: {exc}") from exc

"""`/paste`: the clipboard's image, staged for the next prompt of a vision model.

A terminal cannot paste an image, so it is read as PNG by the desktop clipboard's own
tool (`wl-paste`, `xclip` or `pngpaste`)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from rift.errors import RiftError

if TYPE_CHECKING:
    from rift.frontends.tui.host import CommandHost

CLIPBOARD_COMMANDS = (
    ("wl-paste", "--no-newline", "--type", "image/png"),
    ("xclip", "-selection", "clipboard", "-t", "image/png", "-o"),
    ("pngpaste", "-"),
)
"""Tried in this order; the first one installed is asked."""
CLIPBOARD_TIMEOUT_S = 5.0
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


async def paste(app: CommandHost, arg: str) -> None:
    """Stage the clipboard's image for the next prompt (vision models only)."""
    conversation = app.require_conversation()
    if not conversation.state.sees:
        raise RiftError(
            f"model '{conversation.state.model}' does not report vision: no image staged"
            " (switch to a vision model, e.g. llama-server with --mmproj)"
        )
    data = await read_clipboard_image()
    from rift.models.attachments import AttachmentError, image_data_url

    try:
        url = image_data_url(Path("clipboard.png"), data)
    except AttachmentError as exc:
        raise RiftError(str(exc)) from exc
    app.driver.staged.append(url)
    count = len(app.driver.staged)
    app.say(
        f"image staged ({len(data) // 1024 or 1} KB; {count} waiting): it goes with your next"
        " prompt",
        "info",
    )


async def read_clipboard_image() -> bytes:
    """The clipboard's image as PNG bytes; RiftError when no tool or no image is there."""
    installed = [c for c in CLIPBOARD_COMMANDS if shutil.which(c[0])]
    if not installed:
        raise RiftError(
            "no clipboard tool to read an image with: install wl-clipboard (Wayland),"
            " xclip (X11) or pngpaste (macOS)"
        )
    argv = installed[0]
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        async with asyncio.timeout(CLIPBOARD_TIMEOUT_S):
            out, _ = await process.communicate()
    except TimeoutError as exc:
        process.kill()
        raise RiftError(f"{argv[0]} did not answer within {CLIPBOARD_TIMEOUT_S:.0f} s") from exc
    except OSError as exc:
        raise RiftError(f"could not run {argv[0]}: {exc}") from exc
    if process.returncode != 0 or not out.startswith(PNG_MAGIC):
        raise RiftError(f"the clipboard holds no image ({argv[0]} found no PNG in it)")
    return out

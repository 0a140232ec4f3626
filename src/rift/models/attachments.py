"""`--attach PATH`: images travel as base64 beside the prompt, text files inside it.

Images are capped at 10 MB before any request (every server refuses bigger ones later
and slower) and stored as `data:` URLs that each wire format reshapes. A model that does
not report "vision" is never sent one (`images_for` says so): it would error or
silently ignore it.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

IMAGE_CAP_BYTES = 10 * 1024 * 1024
TEXT_CAP_BYTES = 1024 * 1024
"""A text file past 1 MB (~250k tokens) would not fit any context window."""
IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}


class AttachmentError(ValueError):
    """An attachment that cannot be sent; the message is one line for the user."""


class Attachments(Struct, frozen=True):
    """What `--attach` contributed: text for the prompt, images for the message."""

    text: str = ""
    images: tuple[str, ...] = ()


def image_data_url(path: Path, data: bytes) -> str:
    """An image file's bytes as the `data:` URL messages carry (also `@image` mentions).

    Raises:
        AttachmentError: over the 10 MB cap.
    """
    if len(data) > IMAGE_CAP_BYTES:
        raise AttachmentError(
            f"attachment {path} is {len(data) / 1e6:.1f} MB; images are capped at 10 MB"
        )
    encoded = base64.b64encode(data).decode("ascii")
    return f"data:{IMAGE_TYPES[path.suffix.lower()]};base64,{encoded}"


def _text(path: Path, data: bytes) -> str:
    if len(data) > TEXT_CAP_BYTES:
        raise AttachmentError(f"attachment {path} is over 1 MB of text; attach a smaller file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = "\x00"  # not UTF-8: binary, as far as a prompt is concerned
    if "\x00" in text:
        raise AttachmentError(
            f"attachment {path} is neither text nor an image ({', '.join(IMAGE_TYPES)})"
        )
    return f"\n\n--- attached file: {path} ---\n{text.rstrip()}\n--- end of {path} ---"


def load_attachments(paths: Sequence[str], cwd: Path) -> Attachments:
    """Read every `--attach` path (relative to `cwd`).

    Raises:
        AttachmentError: a missing, unreadable, oversized or binary file.
    """
    text: list[str] = []
    images: list[str] = []
    for raw in paths:
        path = Path(raw).expanduser()
        full = path if path.is_absolute() else cwd / path
        try:
            data = full.read_bytes()
        except OSError as exc:
            raise AttachmentError(
                f"cannot attach {raw}: {exc.strerror or exc.__class__.__name__}"
            ) from exc
        if full.suffix.lower() in IMAGE_TYPES:
            images.append(image_data_url(path, data))
        else:
            text.append(_text(path, data))
    return Attachments("".join(text), tuple(images))


def images_for(images: Sequence[str], model: str, vision: bool) -> tuple[list[str], str]:
    """The images a model may be sent, and the warning when it may not (else "")."""
    if not images or vision:
        return list(images), ""
    count = f"{len(images)} image" + ("s" if len(images) > 1 else "")
    return [], (
        f"model '{model}' does not report vision: {count} not sent"
        " (use a vision model to attach images)"
    )

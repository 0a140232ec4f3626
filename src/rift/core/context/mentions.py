"""`@path` mentions: attaching the files a prompt names, once, for every face.

A mention (`@` at the start or after whitespace, a path relative to the project) is a
read on the user's behalf, so it obeys the Read rules a `read` call would: a denied file
is named as a problem, never attached. An image rides on the prompt's message only when
the model reports vision; a text-only model would error on it or silently ignore it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from msgspec import Struct

from rift.models.attachments import IMAGE_TYPES, AttachmentError, image_data_url
from rift.text.patterns import lazy
from rift.tools import _outline

ATTACH_CAP_BYTES = 48_000
OUTLINE_CAP_CHARS = 12_000
"""Characters of a big file's outline attached; past that the outline is cut too."""
_MENTION = lazy(r"(?:(?<=\s)|^)@([^\s@]+)")


class Expanded(Struct, frozen=True):
    """A prompt with its mentions attached, plus one line per mention that failed."""

    text: str
    attached: list[str]
    problems: list[str]
    images: tuple[str, ...] = ()
    """Mentioned images as `data:` URLs, for the prompt's message."""


def mentions(text: str) -> list[str]:
    """The mentioned paths, in order, without duplicates."""
    return list(dict.fromkeys(m.group(1).rstrip(".,;:!?)") for m in _MENTION().finditer(text)))


def expand(
    text: str, cwd: Path, check_read: Callable[[Path], str | None], *, vision: bool = False
) -> Expanded:
    """Append each mentioned file's content to the prompt and collect mentioned images;
    `check_read` is the gate's read check (the refusal for a denied path, else None)."""
    blocks: list[str] = []
    attached: list[str] = []
    problems: list[str] = []
    images: list[str] = []
    for name in mentions(text):
        path = (cwd / name).resolve()
        if not path.is_file():
            if (cwd / name).exists() or "/" in name or "." in name:
                problems.append(f"@{name}: not a file, not attached")
            continue  # `@someone` in prose is not a mention
        refusal = check_read(path)
        if refusal is not None:
            problems.append(f"@{name}: not attached: {refusal}")
            continue
        image = path.suffix.lower() in IMAGE_TYPES
        if image and not vision:
            problems.append(
                f"@{name}: not attached: the model does not report vision (use a vision model)"
            )
            continue
        try:
            data = path.read_bytes()
        except OSError as exc:
            problems.append(f"@{name}: {exc.strerror or exc}")
            continue
        if image:
            try:
                images.append(image_data_url(Path(name), data))
            except AttachmentError as exc:
                problems.append(f"@{name}: not attached: {exc}")
                continue
            attached.append(name)
            continue
        if b"\x00" in data[:8192]:
            problems.append(f"@{name}: binary file, not attached")
            continue
        blocks.append(_attachment(name, path, data))
        attached.append(name)
    if blocks:
        text += "\n\nAttached files:\n" + "\n".join(blocks)
    return Expanded(text, attached, problems, tuple(images))


def _attachment(name: str, path: Path, data: bytes) -> str:
    """A mentioned text file as a `<file>` block: whole, or for a big source file its outline,
    since a 48 KB head is most of a local model's window and rarely the part that matters."""
    if len(data) <= ATTACH_CAP_BYTES:
        return f'<file path="{name}">\n{data.decode("utf-8", errors="replace")}\n</file>'
    text = data.decode("utf-8", errors="replace")
    skeleton = _outline_of(path, text)
    if skeleton:
        lines = text.count("\n") + 1
        return (
            f'<file path="{name}" outline="true">\n'
            f"{name} has {lines} lines ({len(data)} bytes), too big to attach whole; its outline"
            " follows. Read the part you need with read's offset and limit.\n"
            f"{skeleton}\n</file>"
        )
    body = data[:ATTACH_CAP_BYTES].decode("utf-8", errors="replace")
    body += f"\n[… truncated: {len(data)} bytes, first {ATTACH_CAP_BYTES} shown]"
    return f'<file path="{name}">\n{body}\n</file>'


def _outline_of(path: Path, text: str) -> str | None:
    """The rendered outline, capped; None for a file type without one or no symbols."""
    if not _outline.supported(path):
        return None
    try:
        symbols = _outline.outline(path, text)
    except (RecursionError, ValueError, MemoryError):  # a pathological file: attach the head
        return None
    if not symbols:
        return None
    rendered = _outline.render(symbols)
    if len(rendered) > OUTLINE_CAP_CHARS:
        cut = rendered.rfind("\n", 0, OUTLINE_CAP_CHARS)
        rendered = rendered[: max(cut, 0)] + "\n[… outline cut]"
    return rendered

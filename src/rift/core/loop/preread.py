"""The files a small model's task names, read for it before its first step.

A 1.5B model asked to "fix max_of in stats.py" spends its first call, a few
seconds of generation and another prefill, asking to read stats.py, and now and
then reads the wrong path. aider's answer is to put the files a user names into
the chat; rift does the same for small models only, by running the real `read`
tool on the model's behalf (so its events show, Read rules apply and the
history looks as if the model had asked). Capable models choose their own reads.

Only plain names of files that exist in the project count: a word with a dot or
a slash, relative, inside the project once symlinks are resolved, a regular
file of at most `MAX_BYTES`. `@path` mentions are attached by core/context/mentions.py
already and are skipped here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rift.models.base import PREREAD_ID
from rift.text.patterns import lazy

__all__ = ["PREREAD_ID", "named_files"]

MAX_FILES = 2
MAX_BYTES = 16_000
_WORD = lazy(r"(?:(?<=\s)|(?<=^)|(?<=[`'\"(]))([\w~][\w./~+-]*\.[A-Za-z0-9]+|[\w.-]+/[\w./-]+)")


def named_files(words: str, cwd: Path, check_read: Callable[[Path], str | None]) -> list[str]:
    """Paths (as the user wrote them) of up to MAX_FILES project files `words` names.

    `check_read` is the gate's read check: a denied file is never read for the model.
    """
    root = cwd.resolve()
    found: list[str] = []
    for match in _WORD().finditer(words):
        name = match.group(1).rstrip(".,;:!?")
        if name in found or name.startswith("~") or Path(name).is_absolute():
            continue
        path = (cwd / name).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            continue
        try:
            if path.stat().st_size > MAX_BYTES:
                continue
        except OSError:
            continue
        if check_read(path) is not None:
            continue
        found.append(name)
        if len(found) == MAX_FILES:
            break
    return found

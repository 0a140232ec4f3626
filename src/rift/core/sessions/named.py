"""Sessions by name: the file `/save NAME` writes and `--resume NAME` opens (issue 44). Both
clean a name the same way; only the standard library is imported, since the CLI resolves
`--resume` before the core loads.
"""

from __future__ import annotations

import re
from pathlib import Path

_LISTED = 20
"""How many saved names an unknown-name error lists (newest first)."""


def clean_name(name: str) -> str:
    """`name` as a file stem: runs of anything but word characters, dots and dashes
    become one dash; leading and trailing dashes and dots go. Empty when nothing is left."""
    return re.sub(r"[^\w.-]+", "-", name).strip("-.")


def saved_names(sessions_dir: Path) -> list[str]:
    """The stems of the non-empty saved sessions, newest first."""
    try:
        found = [(p.stat().st_mtime_ns, p.stem) for p in sessions_dir.glob("*.json") if p.is_file()]
    except OSError:
        return []
    return [stem for _, stem in sorted(found, reverse=True)]


def resolve_resume(raw: str, sessions_dir: Path, cwd: Path) -> Path:
    """The session file `--resume raw` means: a path when `raw` holds a `/`; else the
    name `/save` gave, else a session file of that name in `cwd`. A bare name that is
    neither never becomes a new file in the project folder: LookupError, its message
    one line listing the saved names."""
    path = (cwd / Path(raw).expanduser()).resolve()
    if "/" in raw:  # a path, as the serve protocol passes it: absent starts fresh there
        return path
    stem = clean_name(raw.removesuffix(".json"))
    named = sessions_dir / f"{stem}.json"
    if stem and named.is_file():
        return named
    if path.is_file():
        return path
    names = saved_names(sessions_dir)
    listed = ", ".join(names[:_LISTED]) + (", …" if len(names) > _LISTED else "")
    raise LookupError(
        f"no saved session named {raw!r} (saved: {listed or 'none yet'}); nothing was started"
    )

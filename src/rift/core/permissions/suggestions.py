"""The rules an "always allow" answer offers: narrow enough to be safe to persist.

The gate asks with these as the persistent choice; a suggestion never becomes a
catch-all, and glob characters in real names are escaped to match only themselves.
"""

from __future__ import annotations

import re
from pathlib import Path

from rift.core.permissions.rule_paths import canonical


def suggest_bash_pattern(command: str) -> str:
    """The pattern "always allow" offers: `prog sub *` when the second word looks like a
    subcommand (no leading `-`, none of `/ \\ . =`), else `prog *`, "" for an empty command.
    Built from the first segment only, with glob characters escaped, so a command
    like `* x` or `git status;curl x` can never yield a catch-all or dead rule."""
    from rift.core.permissions.bash_forms import split_bash_segments  # see verdict_for_bash

    segments = split_bash_segments(command)
    words = [_escape(word) for word in segments[0].split()] if segments else []
    if not words:
        return ""
    if len(words) > 1 and not words[1].startswith("-") and not re.search(r"[/\\.=]", words[1]):
        return f"{words[0]} {words[1]} *"
    return f"{words[0]} *"


def suggest_edit_rule(path: Path, cwd: Path) -> str:
    """The persistent edit rule offered for `path`: its top-level directory under
    cwd, the file itself at the cwd root, or its own directory outside cwd (never /)."""
    real = canonical(path, cwd)
    try:
        parts = real.relative_to(canonical(cwd, cwd)).parts
    except ValueError:
        parent = real.parent
        if parent == Path(parent.anchor):
            return f"Edit({_escape(real.as_posix())})"
        return f"Edit({_escape(parent.as_posix())}/**)"
    if len(parts) <= 1:
        return f"Edit({_escape(real.name)})"
    return f"Edit({_escape(parts[0])}/**)"


def _escape(text: str) -> str:
    """Make glob characters in a real file name match only themselves."""
    return re.sub(r"([*?\[{])", r"[\1]", text)

"""A hard link to a denied file is denied (issue 30): `ln secrets/key.txt hard.txt`.

Path rules match names, and a hard link is the same file under another name. A file with
more than one link (checked on the opened descriptor) is looked up among the files the
deny rules and the credential guard name, and refused when one is the same inode; files
with one link cost nothing. The search is capped; brace-set rules match by name only.
Write and edit cannot reach a denied file this way: they replace the name atomically
(rift/fs/safe_fs.py), giving it a new inode and leaving the other name's file untouched.
"""

from __future__ import annotations

import os
from pathlib import Path

from rift.core.permissions.rules import Rules

SEARCH_CAP = 20_000
"""The most names looked at per check (a deny rule like `Read(**/.env)` walks the tree)."""


def denied_twin(rules: Rules, tool: str, info: os.stat_result) -> str | None:
    """The deny rule that names another link of the file `info` describes, or None."""
    if info.st_nlink <= 1:
        return None
    import glob  # here only: a hard-linked file is rare

    key = (info.st_dev, info.st_ino)
    seen = 0
    for rule, pattern in rules.denied_globs(tool):
        for name in glob.iglob(pattern, recursive=True, include_hidden=True):
            seen += 1
            if seen > SEARCH_CAP:
                return None
            try:
                other = os.stat(name, follow_symlinks=False)
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == key:
                return rule
    return None


def hard_link_refusal(rules: Rules, tool: str, path: Path, info: os.stat_result) -> str | None:
    """The refusal for reading `path` when it is a hard link to a denied file."""
    rule = denied_twin(rules, tool, info)
    if rule is None:
        return None
    return f"{path} blocked by permission rule '{rule}' (it is a hard link to a denied file)"

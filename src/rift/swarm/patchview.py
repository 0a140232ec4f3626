"""A candidate's patch as the faces show it: the patch text, and each file's text
before and after (an editor's diff view wants whole texts, not hunks).

Both come from the race's files alone, so they still work after `merge --cleanup`: the
patch's `index` lines name each file's blobs, which the candidates' `git add -A` put in
the shared object store. A file whose text cannot be shown (binary, too big, a blob git
no longer has) is left out of the changes; the patch text still names it.
"""

from __future__ import annotations

from pathlib import Path

from msgspec import Struct

from rift.swarm.gitrepo import SwarmError, repo_root, run_git
from rift.swarm.merge import unquote
from rift.swarm.worktrees import patch_path, read_patch

MAX_PATCH_CHARS = 400_000
"""A patch longer than this is cut for display (the file on disk stays whole)."""
MAX_FILE_BYTES = 256_000
"""A file bigger than this on either side is not shown as whole texts."""


class FileChange(Struct, frozen=True):
    """One file of a candidate's patch: its path and its text before and after."""

    path: Path
    """Where the file is in the person's tree (the new name for a rename)."""
    old: str | None
    """None: the patch creates it."""
    new: str | None
    """None: the patch deletes it."""


class _Entry(Struct, dict=True):
    old_path: str = ""
    new_path: str = ""
    old_blob: str = ""
    new_blob: str = ""


def patch_text(cwd: Path, name: str) -> str:
    """Candidate `name`'s patch, "" when it left none (or made no changes)."""
    try:
        raw = read_patch(patch_path(repo_root(cwd), name))
    except (SwarmError, OSError):
        return ""
    text = raw.decode("utf-8", errors="replace")
    if len(text) > MAX_PATCH_CHARS:
        cut = len(text) - MAX_PATCH_CHARS
        text = text[:MAX_PATCH_CHARS] + f"\n… [{cut} more characters in the patch file]\n"
    return text


def file_changes(cwd: Path, name: str) -> list[FileChange]:
    """Each text file candidate `name`'s patch changes, with its whole text before and after."""
    try:
        root = repo_root(cwd)
        raw = read_patch(patch_path(root, name))
    except (SwarmError, OSError):
        return []
    changes: list[FileChange] = []
    for entry in _entries(raw.decode("utf-8", errors="surrogateescape")):
        if not (entry.old_path or entry.new_path):
            continue  # binary, a pure rename or a mode change: no text lines to compare
        old = _blob(root, entry.old_blob) if entry.old_path else None
        new = _blob(root, entry.new_blob) if entry.new_path else None
        if (entry.old_path and old is None) or (entry.new_path and new is None):
            continue
        changes.append(FileChange(root / (entry.new_path or entry.old_path), old, new))
    return changes


def _entries(text: str) -> list[_Entry]:
    """The files of a `git diff --binary` patch, read from their header lines."""
    entries: list[_Entry] = []
    current: _Entry | None = None
    for line in text.splitlines():
        if line.startswith("diff --git "):
            current = _Entry()
            entries.append(current)
        elif current is None:
            continue
        elif line.startswith("index ") and ".." in line:
            blobs = line.split()[1]
            current.old_blob, _, current.new_blob = blobs.partition("..")
        elif line.startswith("--- ") and not current.old_path:
            current.old_path = _side(line[4:], "a/")
        elif line.startswith("+++ ") and not current.new_path:
            current.new_path = _side(line[4:], "b/")
            current = None  # the hunks follow: no more headers for this file
    return entries


def _side(name: str, prefix: str) -> str:
    """A `---`/`+++` header's path without its a/ or b/ prefix; "" for /dev/null."""
    name = unquote(name.rstrip("\t"))
    if name == "/dev/null":
        return ""
    return name[len(prefix) :] if name.startswith(prefix) else name


def _blob(root: Path, blob: str) -> str | None:
    """A blob's text, None when git has no such blob, or it is big or not UTF-8."""
    if not blob or set(blob) == {"0"}:
        return None
    size = run_git(root, "cat-file", "-s", blob)
    if size.returncode != 0 or int(size.stdout.strip() or 0) > MAX_FILE_BYTES:
        return None
    done = run_git(root, "cat-file", "blob", blob)
    if done.returncode != 0:
        return None
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None

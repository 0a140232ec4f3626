"""Session files: reserve, save, list (loading: loading.py).

A session is one JSON file `{model, saved_at, cwd, messages}`. Lenient on the way in (a
missing, empty or corrupt file resumes fresh instead of crashing) and strict on the way
out (every write is atomic). This module also owns the markers rift writes into user
messages and the one predicate deciding which user messages are real prompts, so titles,
turn counts, the resumed transcript, trimming and compaction agree on what "a turn" is.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any, cast

from rift.core.sessions.loading import move_aside, parse_session
from rift.events import HistoryMessage, SessionItem
from rift.fs.paths import atomic_write
from rift.models.base import Message

INTERRUPT_NOTE = (
    "[system] The previous turn was cancelled by the user and deliberately abandoned;"
    " do not resume it unless asked.\n\n"
)
"""Prefixed by the turn loop to the prompt after a cancelled turn; stripped from display."""

COMPACTED_PREFIX = "[Earlier conversation was compacted. Summary:]\n"
"""Starts the synthetic user message that replaces summarized history (core/context/budget.py)."""

RESUME_NOTE_START = "[Resumed session."
"""How the note a resumed session's first prompt starts with begins (resume_note.py)."""
SYSTEM_MARKER = "[system]"
"""User messages starting with this were written by rift (nudges, notes), not the person."""

DEFAULT_MAX_BYTES = 10_000_000
TITLE_CHARS = 100
LIST_LIMIT = 200


def prompt_text(message: Message) -> str | None:
    """The person's prompt in a user message (the interrupt note stripped, so the prompt
    after a cancel counts), or None when rift wrote the message."""
    if message.get("role") != "user":
        return None
    text = message.get("content", "")
    if text.startswith(INTERRUPT_NOTE):
        text = text[len(INTERRUPT_NOTE) :]
    if text.startswith(RESUME_NOTE_START) and "]\n\n" in text:  # sessions/resume_note.py
        text = text[text.index("]\n\n") + 3 :]
    if not text.strip() or text.startswith(SYSTEM_MARKER) or text.startswith(COMPACTED_PREFIX):
        return None
    return text


def turn_starts(messages: list[Message]) -> list[int]:
    """Indexes of the user messages that begin a turn (see `prompt_text`)."""
    return [i for i, m in enumerate(messages) if prompt_text(m) is not None]


def user_turn_count(messages: list[Message]) -> int:
    """How many prompts the person has sent in this conversation."""
    return len(turn_starts(messages))


def history_for(messages: list[Message]) -> list[HistoryMessage]:
    """The exchanges a resumed session shows: prompts and final assistant replies, without
    tool traffic or rift's own notes."""
    out: list[HistoryMessage] = []
    for message in messages:
        role = message.get("role")
        if role == "user":
            text = prompt_text(message)
            if text is not None:
                out.append(HistoryMessage(role="user", text=text))
        elif role == "assistant" and not message.get("tool_calls"):
            content = message.get("content", "")
            if content.strip():
                out.append(HistoryMessage(role="assistant", text=content))
    return out


class SessionStore:
    """The sessions directory: new names, the newest file, the picker list."""

    def __init__(self, sessions_dir: Path) -> None:
        self.sessions_dir = sessions_dir
        self._cache: dict[Path, tuple[int, int, SessionItem]] = {}
        """path -> (mtime_ns, size, item): `list_items` reparses only changed files."""
        self.set_aside: list[str] = []
        """One warning per malformed file `newest` renamed out of the way, for the front end."""

    def reserve(self) -> Path:
        """A new, empty session file, created exclusively (O_EXCL): the name is ours even when
        two rift processes start in the same second."""
        private_dir(self.sessions_dir)
        secs = int(time.time())
        n = 0
        while True:
            name = f"{secs}.json" if n == 0 else f"{secs}-{n}.json"
            path = self.sessions_dir / name
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600)
            except FileExistsError:
                n += 1
                continue
            os.close(fd)
            return path

    def _non_empty(self) -> list[tuple[Path, os.stat_result]]:
        """Every non-empty `*.json`, newest mtime first (name breaks ties)."""
        found: list[tuple[Path, os.stat_result]] = []
        try:
            entries = list(self.sessions_dir.glob("*.json"))
        except OSError:
            return []
        for path in entries:
            try:
                st = path.stat()
            except OSError:
                continue
            if st.st_size > 0 and path.is_file():
                found.append((path, st))
        found.sort(key=lambda item: (item[1].st_mtime_ns, item[0].name), reverse=True)
        return found

    def newest(self, cwd: Path | None = None) -> Path | None:
        """The session `--continue` resumes: the newest with a user message saved in `cwd` (any
        project when None), so another project's conversation or an open-and-quit is never
        resumed. A malformed file met on the way is set aside as `<name>.corrupt` with a warning
        in `set_aside`: one warning once rather than one on every run."""
        want = _real(str(cwd)) if cwd is not None else None
        for item in self._items(set_aside=True):
            if item.turns > 0 and (want is None or _real(item.cwd) == want):
                return Path(item.path)
        return None

    def list_items(self, limit: int = LIST_LIMIT) -> list[SessionItem]:
        """Saved sessions for a picker, newest first, parsed only until `limit` are found;
        unreadable files are skipped."""
        return list(islice(self._items(), limit))

    def _items(self, *, set_aside: bool = False) -> Iterator[SessionItem]:
        """Parsed sessions, newest first, each file parsed once per (mtime, size); with
        `set_aside` (never for the read-only listing) a malformed one is renamed out of the way."""
        for path, st in self._non_empty():
            cached = self._cache.get(path)
            if cached is not None and cached[:2] == (st.st_mtime_ns, st.st_size):
                yield cached[2]
                continue
            try:
                item = _read_item(path, st)
            except OSError:
                continue
            except ValueError as exc:
                if set_aside:
                    self.set_aside.append(move_aside(path, str(exc)))
                continue
            self._cache[path] = (st.st_mtime_ns, st.st_size, item)
            yield item


def _real(path: str) -> str:
    """A directory compared by what it is, not how it was spelled (symlinks, `..`)."""
    return os.path.realpath(path) if path else ""


def _read_item(path: Path, st: os.stat_result) -> SessionItem:
    """The picker entry for one file; raises OSError (unreadable) or ValueError (malformed)."""
    data, messages = parse_session(path.read_bytes())
    starts = [text for m in messages if (text := prompt_text(m)) is not None]
    title = starts[0].strip().splitlines()[0][:TITLE_CHARS] if starts else "(empty session)"
    saved_at = data.get("saved_at")  # finite: parse_session refuses NaN and infinities
    if not isinstance(saved_at, int | float) or isinstance(saved_at, bool):
        saved_at = st.st_mtime
    if not 0 <= int(saved_at) < 1 << 53:  # what a JSON client can hold exactly
        saved_at = st.st_mtime
    return SessionItem(
        path=str(path),
        title=title,
        saved_at=int(saved_at),
        cwd=_str_or(data.get("cwd"), ""),
        model=_str_or(data.get("model"), ""),
        turns=len(starts),
    )


def _str_or(value: Any, default: str) -> str:
    return value if isinstance(value, str) else default


def save_session(
    path: Path,
    *,
    model: str,
    cwd: str | Path,
    messages: list[Message],
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> None:
    """Write the session atomically (OSError when the write fails), trimmed to `max_bytes` by
    dropping whole turns from the front, so a cut lands on a prompt and never separates a
    tool call from its result. Only the file is trimmed, never the live context."""
    saved_at = int(time.time())
    clean = [_compact_message(m) for m in messages]

    def render(kept: list[Message]) -> bytes:
        doc = {"model": model, "saved_at": saved_at, "cwd": str(cwd), "messages": kept}
        # backslashreplace: a lone surrogate (a non-UTF-8 filename in a tool result) is
        # written as a `\udXXX` JSON escape instead of making the session unsavable.
        text = json.dumps(doc, indent=2, ensure_ascii=False)
        return text.encode("utf-8", errors="backslashreplace")

    data = render(clean)
    if len(data) > max_bytes:
        data = _trimmed(clean, max_bytes, render)
    private_dir(path.parent)
    atomic_write(path, data)
    os.chmod(path, 0o600)  # atomic_write keeps an existing file's bits: an old 0644 tightens


def private_dir(folder: Path) -> None:
    """Make the sessions folder (which holds everything the model read) 0700, tightening
    one an older rift made 0755. It lives in the user's data folder, so a link the user
    made there is followed."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if os.stat(folder).st_mode & 0o077:
        os.chmod(folder, 0o700)


def _trimmed(
    messages: list[Message], max_bytes: int, render: Callable[[list[Message]], bytes]
) -> bytes:
    """The largest suffix of whole turns (after the system prefix) that fits."""
    head = 0
    while head < len(messages) and messages[head]["role"] == "system":
        head += 1
    system, rest = messages[:head], messages[head:]
    cuts = [i for i in turn_starts(rest) if i > 0]  # where a kept suffix may begin
    if not cuts:
        return render(messages)
    # Binary search for the fewest dropped turns that fit: size shrinks as more go.
    lo, hi = 0, len(cuts) - 1
    best = hi  # the last turn alone, kept even when it is over the cap
    while lo <= hi:
        mid = (lo + hi) // 2
        if len(render(system + rest[cuts[mid] :])) <= max_bytes:
            best, hi = mid, mid - 1
        else:
            lo = mid + 1
    return render(system + rest[cuts[best] :])


def _compact_message(message: Message) -> Message:
    """The message without empty optional fields (the stored format omits them)."""
    out: dict[str, Any] = {"role": message["role"], "content": message.get("content", "")}
    for key, value in message.items():
        if key not in out and value not in ("", [], None):
            out[key] = value
    return cast(Message, out)

"""The whole-file edit format: a small model rewrites a small named file in one request.

aider's `whole` format (the model answers with the complete new file) drove the
same 1.5B GGUF to 16/18 on the tiny tier where rift's search-and-replace loop
made 11/18 in almost three times the requests: a small model copies a 10-line
file back with one change far more reliably than it writes an exact old_string,
and one request replaces read, edit and final answer. So when a small model's
task asks for a change and names exactly one file that rift already read for it
(core/preread.py) and that is short enough for the write guard to accept a
rewrite (tools/guard.is_tiny), rift asks for that file whole. The embedded
model's grammar then admits only `write` of that path (models/embedded_calls.py).

The write is an ordinary tool call: the same guards (template tokens, line
numbers, parse check, dead code, an unchanged file), the same review and undo.
When it succeeds and the after-edit checks pass, the turn ends with rift's own
one-line answer instead of another request; when a guard refuses it, the turn
goes on as before (the refusal steers the model to `edit`).
"""

from __future__ import annotations

import re
from pathlib import Path

from rift.core.loop import taskcheck
from rift.models.base import ToolCall
from rift.models.embedded_whole import WHOLE_FILE_REQUEST, whole_file_call
from rift.patterns import lazy
from rift.tools import guard

_ASKS_CHANGE = lazy(
    r"\b(fix|add|change|rename|remove|delete|replace|update|set|make|correct|insert|move|"
    r"convert|implement|refactor|give|append|extend|return|raise|handle)\b",
    re.IGNORECASE,
)
_RESTATED_TASK_CHARS = 400
"""A longer task (an Exercism exercise's instructions) is not said twice."""
_CHAT_ONLY = lazy(r"\?\s*$|without (using )?(any )?tools?|do not use|don't use", re.IGNORECASE)


def target(words: str, named: list[str], cwd: Path) -> str:
    """The one file to ask for whole ("" when this task is not one for the format)."""
    if len(named) != 1 or not _ASKS_CHANGE().search(words) or _CHAT_ONLY().search(words):
        return ""
    path = cwd / named[0]
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    if not text.strip() or "\0" in text or not guard.is_tiny(text):
        return ""
    return named[0]


def request(path: str, words: str = "") -> str:
    """The message that asks for the file whole (its first words are what the grammar keys on).

    A short task is said again at the end: the 1.5B model, asked for greet.py whole
    "with the task's change made", sent it back unchanged three times; the task sits
    two messages up, behind the file, and a small model answers what it read last
    (aider's prompt, too, puts the request after the files)."""
    task = " ".join(words.split())
    change = (
        f"with this change made in them: {task}"
        if task and len(task) <= _RESTATED_TASK_CHARS
        else "with the task's change made in them."
    )
    return (
        WHOLE_FILE_REQUEST.format(path=path)
        + f" reply with the complete new {path} in one fenced code block: all of its current "
        f"lines (every function kept as it is, without the line numbers) {change} No other text."
    )


def answer(path: str, added: int, removed: int) -> str:
    """rift's final answer after a whole-file rewrite that passed every check."""
    return f"Changed {path} (+{added} -{removed} lines)."


def as_write(content: str, path: str) -> list[ToolCall]:
    """A reply to the whole-file request that made no call, as the `write` of `path`: a
    server model answers with the file in a fenced block as plain content (the embedded
    provider makes that a `write` itself). [] when the content holds no complete fence."""
    return whole_file_call(content, path)[1]


def settle(call: ToolCall, path: str, cwd: Path) -> ToolCall:
    """The whole-file `write` of `path` with the file's own last-line ending kept: the fence
    drops the final newline as often as not, and a rewrite should not change it."""
    args = call.arguments
    if call.name != "write" or args is None or args.get("path") != path:
        return call
    content = args.get("content")
    try:
        ends = (cwd / path).read_bytes().endswith(b"\n")
    except OSError:
        return call
    if not isinstance(content, str) or not content or content.endswith("\n") or not ends:
        return call
    return ToolCall(id=call.id, name=call.name, arguments={**args, "content": content + "\n"})


def rename_hint(words: str, named: list[str], cwd: Path) -> tuple[str, str]:
    """(the file, the `[system]` message) that turns "rename OLD to NEW in FILE" into the one
    call that does it; ("", "") for any other task. Asked for shapes.py whole, the 1.5B model
    sent it back with comments added and the name unchanged, twice; told the exact `edit`
    with `replace_all`, it makes it, and the rename reaches every use in one request."""
    pairs = taskcheck.renames(words)
    if len(pairs) != 1 or len(named) != 1:
        return "", ""
    old, new = pairs[0]
    path = named[0]
    try:
        text = (cwd / path).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return "", ""
    if not re.search(rf"(?<!\w){re.escape(old)}(?!\w)", text):
        return "", ""
    return path, (
        f"[system] To rename `{old}` to `{new}` everywhere in {path}, make one call: edit "
        f"{path} with old_string `{old}`, new_string `{new}` and replace_all true (it renames "
        "the code's uses of the name, not comments or text)."
    )

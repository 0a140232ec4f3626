"""The embedded model's whole-file format: rift's request (core/loop/wholefile.py) starts
with `WHOLE_FILE_REQUEST`, and the model's fenced answer becomes an ordinary `write`
call, so the same guards, review and undo apply.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rift.models.base import Message, ToolCall

WHOLE_FILE_REQUEST = "[system] Rewrite {path} whole:"
"""How core/loop/wholefile.py's request starts: the next step may only write that one file."""
_WHOLE_FILE = re.compile(r"\[system\] Rewrite (\S+) whole:")


def whole_file_path(messages: Sequence[Message]) -> str:
    """The path of a whole-file request that is the newest message ("" when there is none):
    answered by anything, it no longer binds."""
    if not messages or messages[-1]["role"] != "user":
        return ""
    match = _WHOLE_FILE.match(messages[-1].get("content", ""))
    return match.group(1) if match else ""


_FILE_FENCE = re.compile(r"```[\w+.-]*[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
_FENCE_AT_END = re.compile(r"```[\w+.-]*[ \t]*\n(.*?)```[ \t]*\Z", re.DOTALL)
"""A fence closed at the end of the file's last line (`}```` ), as small models often close it."""
_NUMBER_PREFIX = re.compile(r"^ *\d+\t", re.MULTILINE)


def fence_closed(text: str) -> bool:
    """`text` holds a complete fenced block (the reply to a whole-file request is done)."""
    return _FILE_FENCE.search(text) is not None


def whole_file_call(text: str, path: str) -> tuple[str, list[ToolCall]]:
    """A reply to a whole-file request as ("", a `write` of the fenced file), the words
    around the fence dropped; (text, []) when it holds no complete fence. The first fence
    is the file, as in aider's whole format; the read tool's line numbers, copied on every
    line, come off."""
    match = _FILE_FENCE.search(text) or _FENCE_AT_END.search(text)
    if match is None or not match.group(1).strip():
        return text, []
    body = match.group(1)
    lines = [line for line in body.split("\n") if line.strip()]
    if lines and len(_NUMBER_PREFIX.findall(body)) == len(lines):
        body = _NUMBER_PREFIX.sub("", body)
    return "", [ToolCall(id=None, name="write", arguments={"path": path, "content": body})]

"""The whole-file edit format: a small model rewrites a small target file in one request.

aider's `whole` format (the model answers with the complete new file) drove the
same 1.5B GGUF through Exercism stubs where rift's search-and-replace loop did not:
a small model copies a short file back with its change far more reliably than it
writes an exact old_string, and one request replaces read, edit and final answer.

Which format is chosen by the model and the file, never by the task's words: the
profile (core/loop/profile.py) says whether the model gets it and up to how many
lines; the target is the one file the task names (read for it by parts/preread.py),
or, when the task names none, the one non-test source file of a project that holds
it beside its tests (an exercise, a kata, a small library). The request leaves the
model free to answer in words when no change is needed: a reply without a fenced
file is an ordinary answer.

The write is an ordinary tool call: the same guards, review and undo. When it lands
and the project's checks pass (parts/checks.py), the turn ends with rift's own
one-line answer instead of another request.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rift.checks.discover import is_test_file
from rift.core.loop.parts import Part, Turn
from rift.core.loop.parts.preread import Preread
from rift.core.permissions.hunks import changed_lines
from rift.models.base import ToolCall
from rift.models.embedded_whole import WHOLE_FILE_REQUEST, whole_file_call

if TYPE_CHECKING:
    from rift.core.loop.reply import Reply
    from rift.tools.base import Tool, ToolOutput

SOURCE_SUFFIXES = frozenset({".py", ".js", ".ts", ".go", ".rs", ".rb", ".java", ".c", ".cpp"})
_NOT_RUN = "not run: the reply to a whole-file request may only write {path}"


def lone_source(cwd: Path) -> str:
    """The one non-test source file at the project's top, beside test files ("" else)."""
    try:
        files = [p for p in cwd.iterdir() if p.is_file() and not p.is_symlink()]
    except OSError:
        return ""
    sources = [p for p in files if p.suffix in SOURCE_SUFFIXES and not is_test_file(p)]
    tests = [p for p in files if is_test_file(p)]
    return sources[0].name if len(sources) == 1 and tests else ""


def fits(cwd: Path, raw: str, max_lines: int) -> bool:
    """`raw` is a UTF-8 text file inside the project of at most `max_lines` lines."""
    path = cwd / raw
    try:
        if path.is_symlink() or not path.resolve().is_relative_to(cwd.resolve()):
            return False
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return bool(text.strip()) and "\0" not in text and text.count("\n") <= max_lines


REPLY_BASE_TOKENS = 1024
"""What a whole-file reply may always spend: a 10-line stub's solution runs to ~100 lines."""
RESTATED_TASK_CHARS = 400
"""A longer task (an exercise's instructions) is not said twice."""


def request(path: str, words: str = "") -> str:
    """The message that asks for the file whole (its first words are what the embedded
    model's provider keys on: models/embedded_whole.py).

    A short task is said again at its end, whatever its language: the 1.5B model, asked for
    a file whole "with the task's change made", sent it back unchanged; the task sits two
    messages up, behind the file, and a small model answers what it read last (aider's
    prompt, too, puts the request after the files). This repeats the words; it decides
    nothing by them."""
    task = " ".join(words.split())
    change = (
        f"with this change made: {task}"
        if task and len(task) <= RESTATED_TASK_CHARS
        else "with the task's change made."
    )
    return (
        WHOLE_FILE_REQUEST.format(path=path)
        + f" if the task needs {path} changed, reply with the complete new {path} in one "
        "fenced code block: all of its current lines (every function kept as it is, without "
        f"the line numbers) {change} Otherwise answer in words."
    )


def settle(call: ToolCall, path: str, cwd: Path) -> ToolCall:
    """The `write` of `path` with the file's own last-line ending kept: the fence drops
    the final newline as often as not, and a rewrite should not change it."""
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


def _writes(call: ToolCall, path: str) -> bool:
    return call.name == "write" and (call.arguments or {}).get("path") == path


def answer(path: str, added: int, removed: int, checks: str) -> str:
    """rift's final answer after a whole-file rewrite that passed every check."""
    said = f"; {checks}" if checks else ""
    return f"Changed {path} (+{added} -{removed} lines){said}."


class WholeFile(Part):
    """Asks for `target` whole while the request is the newest message, and turns the
    fenced reply into its `write`."""

    def __init__(self, max_lines: int) -> None:
        self.max_lines = max_lines
        self.target = ""
        self._asked = False
        self._only = ""
        """The target while its request is being answered: nothing else runs then."""
        self._wrote = False
        self._landed: tuple[str, str] | None = None
        """(old, new) of the rewrite that landed in the step that just ended."""

    async def before_request(self, turn: Turn, n: int) -> None:
        if n != 1 or "write" not in turn.s.tools:
            return
        preread = turn.parts.find(Preread)
        named = preread.paths if preread is not None else []
        cwd = turn.s.ctx.cwd
        candidate = named[0] if len(named) == 1 else ("" if named else lone_source(cwd))
        if candidate and fits(cwd, candidate, self.max_lines):
            if not named:  # the model has not seen it yet: read it for the model first
                await turn.call("read", {"path": candidate})
            self.target = candidate
            self.ask_again(turn)

    def ask_again(self, turn: Turn) -> None:
        """(Re)send the request: after the checks sent a failure back, the next reply is
        the whole file again, as aider's benchmark does."""
        if not self.target or not fits(turn.s.ctx.cwd, self.target, self.max_lines):
            return
        turn.counters["whole_file_requests"] += 1
        turn.say(request(self.target, turn.words))
        self._asked = True

    def reply_tokens(self, cwd: Path) -> int | None:
        """The output cap for the request now being sent, when it asks for the file whole:
        the file back with room to grow (a token is ~3 bytes of code, so half its bytes
        is about 1.5 times its tokens) on top of `REPLY_BASE_TOKENS`. A small model that
        falls into a loop inside the fence otherwise decodes until the context is full
        (minutes on a CPU) and the turn's time is gone before the checks can answer it."""
        if not self._asked:
            return None
        try:
            size = (cwd / self.target).stat().st_size
        except OSError:
            return None
        return REPLY_BASE_TOKENS + size // 2

    def after_reply(self, turn: Turn, reply: Reply) -> Reply:
        self._landed = None
        self._only, self._wrote = "", False
        if not self._asked:
            return reply
        self._asked = False
        path = self.target
        if not reply.calls:  # the file as a fenced block in the content (a server model)
            reply.calls = whole_file_call(reply.content, path)[1]
            reply.content = "" if reply.calls else reply.content
        writes = [c for c in reply.calls if _writes(c, path)]
        others = [c for c in reply.calls if c not in writes[:1]]
        if others:  # a `<tool_call>` to something else: answered "not run", never run
            turn.counters["whole_file_other_calls"] += len(others)
        self._only = path
        reply.calls = (
            [settle(c, path, turn.s.ctx.cwd) if c is writes[0] else c for c in reply.calls]
            if writes
            else reply.calls
        )
        return reply

    async def before_tool(self, turn: Turn, call: ToolCall, tool: Tool) -> str | None:
        """In the step answering the request, only the one write of the target runs."""
        if not self._only:
            return None
        if _writes(call, self._only) and not self._wrote:
            self._wrote = True
            return None
        return _NOT_RUN.format(path=self._only)

    async def after_tool_result(self, turn: Turn, call: ToolCall, output: ToolOutput) -> bool:
        edit = output.edit
        if not self._only:  # only the step answering the request ends with its write
            return False
        if not (call.name == "write" and output.ok and edit and edit.path == self.target):
            return False
        if "Not done yet" in output.text:
            return False
        self._landed = (edit.old, edit.new)
        return True

    async def before_end(self, turn: Turn, reply: Reply) -> bool:
        landed, self._landed = self._landed, None
        if landed is None or reply.content.strip():
            return False
        passed = turn.checks
        said = passed.describe() if passed is not None and passed.ok else ""
        added, removed = changed_lines(landed[0], landed[1])
        turn.answer(answer(self.target, added, removed, f"checks: {said}" if said else ""))
        return False

"""Tool calls and thinking that a server leaves in the reply's text.

A server that does not parse the model's tool-call syntax (llama.cpp without
`--jinja`, the Python llama-cpp server, a template without tools) hands it
over as content: `<tool_call>{...}</tool_call>` tags, a ```json fence, or a
bare JSON object. Models whose server does not split reasoning put it in
`<think>…</think>`. Streamed as they come, both would show up as prose in the
user's transcript and be stored as the reply.

`ContentGate` sits between the stream and the transcript. Plain text passes
straight through; text that *may* be a call (from an opening tag, a fence whose
language is empty or json, or a reply that starts with `{` or `[`) is held
until the block closes, then either kept back as a call (when it names a
known tool with an object of arguments) or released as content. `<think>`
text is routed to thinking. A block still open when the stream ends is judged
the same way, so nothing is lost.

After a call, a line that starts with `{` or `[` may be the next call: small models on
a server write one bare JSON call a line. A call that repeats one already held in the
same reply is a loop, not a second request: the gate sets `looping` and takes nothing
more, and the stream is ended (reply.py) with each distinct call kept once.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Literal

from rift.core.loop import hardening
from rift.models.base import ToolCall

Kind = Literal["content", "thinking"]
Piece = tuple[Kind, str]
TOOL_OPEN, TOOL_CLOSE = "<tool_call>", "</tool_call>"
THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
FENCE = "```"
CALL_FENCE_LANGUAGES = frozenset({"", "json", "tool_call", "tool_code"})
_OPENERS = (TOOL_OPEN, THINK_OPEN, FENCE)
_SIGNAL_CHARS = ("<", "`")
_DECODER = json.JSONDecoder()


def _identity(call: ToolCall) -> str:
    """What makes two calls the same request (ids differ, or are missing, in text)."""
    return call.name + json.dumps(call.arguments, sort_keys=True)


def _partial_tail(text: str, tokens: tuple[str, ...]) -> int:
    """Length of the longest end of `text` that could be the start of one of `tokens`."""
    longest = 0
    for token in tokens:
        for size in range(min(len(token) - 1, len(text)), longest, -1):
            if token.startswith(text[-size:]):
                longest = size
                break
    return longest


class ContentGate:
    """Streamed content in; what may be shown (content or thinking) out; calls kept back."""

    def __init__(self, known: Collection[str]) -> None:
        self._known = known
        self._buf = ""
        self._mode = ""
        """"" plain, "think", "tag", "fence" (a call-like fence), "code" (any other
        fence, passed through), "json" (a reply that starts with an object or list)."""
        self._started = False
        self._line_start = True
        self._after_think = False
        self._after_call = False
        """Only blank text since the last held call: a `{` may open the next one."""
        self.calls: list[ToolCall] = []
        """Calls found in held blocks, in order, each distinct call once."""
        self.looping = False
        """A held call repeated an earlier one of this reply: the model is looping."""

    def feed(self, text: str) -> list[Piece]:
        plain = not self._mode and not self._buf and self._started
        plain = plain and not self._after_think and not self._after_call
        if plain and not any(c in text for c in _SIGNAL_CHARS):  # the common case: prose
            self._line_start = text.endswith("\n")
            return [("content", text)]
        self._buf += text
        out: list[Piece] = []
        while self._step(out):
            pass
        return out

    def finish(self) -> list[Piece]:
        """The end of the stream: an open block is judged as it stands."""
        out: list[Piece] = []
        buf, mode = self._buf, self._mode
        self._buf, self._mode = "", ""
        if mode == "think":
            self._emit(out, "thinking", buf)
        elif mode == "tag":
            self._decide(out, buf, buf[len(TOOL_OPEN) :])
        elif mode == "fence":
            self._decide(out, buf, buf.partition("\n")[2])
        elif mode == "json":
            self._decide(out, buf, buf)
        else:
            self._emit(out, "content", buf)
        return out

    # ------------------------------------------------------------------ steps

    def _emit(self, out: list[Piece], kind: Kind, text: str) -> None:
        if not text:
            return
        out.append((kind, text))
        if kind == "content":
            self._started = self._started or bool(text.strip())
            self._after_call = self._after_call and not text.strip()
            self._line_start = text.endswith("\n")

    def _decide(self, out: list[Piece], block: str, inner: str) -> None:
        """Keep `block` back when `inner` is a call to a known tool; else show it."""
        calls = hardening.recover_textual_tool_calls(inner.strip(), self._known)
        if calls:
            seen = {_identity(c) for c in self.calls}
            fresh = [c for c in calls if _identity(c) not in seen]
            self.looping = len(fresh) < len(calls)
            self.calls += fresh
            self._started = self._after_call = True
        else:
            self._emit(out, "content", block)

    def _step(self, out: list[Piece]) -> bool:
        """One move on the buffer; True when another may follow."""
        if not self._buf or self.looping:
            return False
        step = {
            "": self._plain,
            "think": self._think,
            "tag": self._tag,
            "fence": self._fence,
            "code": self._code,
            "json": self._json,
        }[self._mode]
        return step(out)

    def _plain(self, out: list[Piece]) -> bool:
        if self._after_think:  # the blank lines between </think> and the answer
            self._buf = self._buf.lstrip("\n")
            if not self._buf:
                return False
            self._after_think = False
        buf = self._buf
        if not self._started or self._after_call:
            stripped = buf.lstrip()
            if not stripped:
                return False
            if stripped[0] in "{[":
                self._mode = "json"
                return True
        at, opener = -1, ""
        for token in _OPENERS:
            found = self._fence_at(buf) if token == FENCE else buf.find(token)
            if found >= 0 and (at < 0 or found < at):
                at, opener = found, token
        if at < 0:
            keep = _partial_tail(buf, _OPENERS)
            self._emit(out, "content", buf[: len(buf) - keep])
            self._buf = buf[len(buf) - keep :]
            return False
        self._emit(out, "content", buf[:at])
        self._buf = buf[at:]
        if opener == THINK_OPEN:
            self._mode, self._buf = "think", self._buf[len(THINK_OPEN) :]
        else:
            self._mode = "tag" if opener == TOOL_OPEN else "fence"
        return True

    def _fence_at(self, buf: str) -> int:
        """Where a fence opens at the start of a line, or -1 (inline backticks are prose)."""
        if buf.startswith(FENCE) and self._line_start:
            return 0
        found = buf.find("\n" + FENCE)
        return found + 1 if found >= 0 else -1

    def _think(self, out: list[Piece]) -> bool:
        buf = self._buf
        end = buf.find(THINK_CLOSE)
        if end < 0:
            keep = _partial_tail(buf, (THINK_CLOSE,))
            self._emit(out, "thinking", buf[: len(buf) - keep])
            self._buf = buf[len(buf) - keep :]
            return False
        self._emit(out, "thinking", buf[:end])
        self._buf = buf[end + len(THINK_CLOSE) :]
        self._mode, self._after_think = "", True
        return True

    def _tag(self, out: list[Piece]) -> bool:
        buf = self._buf
        end = buf.find(TOOL_CLOSE)
        if end < 0:
            return False
        self._buf, self._mode = buf[end + len(TOOL_CLOSE) :], ""
        self._decide(out, buf[: end + len(TOOL_CLOSE)], buf[len(TOOL_OPEN) : end])
        return True

    def _fence(self, out: list[Piece]) -> bool:
        buf = self._buf
        newline = buf.find("\n")
        if newline < 0:
            return False
        if buf[len(FENCE) : newline].strip().lower() not in CALL_FENCE_LANGUAGES:
            self._emit(out, "content", buf[: newline + 1])
            self._buf, self._mode = buf[newline + 1 :], "code"
            return True
        close = buf.find(FENCE, newline)
        if close < 0:
            return False
        self._buf, self._mode = buf[close + len(FENCE) :], ""
        self._decide(out, buf[: close + len(FENCE)], buf[newline + 1 : close])
        return True

    def _code(self, out: list[Piece]) -> bool:
        buf = self._buf
        close = buf.find(FENCE)
        if close < 0:
            keep = _partial_tail(buf, (FENCE,))
            self._emit(out, "content", buf[: len(buf) - keep])
            self._buf = buf[len(buf) - keep :]
            return False
        self._emit(out, "content", buf[: close + len(FENCE)])
        self._buf, self._mode = buf[close + len(FENCE) :], ""
        return True

    def _json(self, out: list[Piece]) -> bool:
        buf = self._buf
        stripped = buf.lstrip()
        second = stripped[1:].lstrip()[:1]
        if second and second not in '"{[]}':
            self._mode, self._started = "", True  # "[1] of the list...": prose, not JSON
            return True
        try:
            _, end = _DECODER.raw_decode(stripped)
        except ValueError:
            return False
        lead = len(buf) - len(stripped)
        block = buf[: lead + end]
        self._buf, self._mode = buf[lead + end :], ""
        self._decide(out, block, block)
        self._started = True
        return True

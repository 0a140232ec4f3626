"""Text hygiene at rift's borders: every string inside rift can be encoded as UTF-8.

Python strings may hold lone surrogates that no UTF-8 encoder accepts (a `\\ud800`
JSON escape, a non-UTF-8 file name or argv). One in a prompt or a tool result made
the session unsavable and every later request fail, so text is scrubbed where it
enters: serve commands, the argv prompt, model output, tool results, resumed sessions.
"""

from __future__ import annotations

import json
from typing import Any

from rift.text.patterns import lazy

_SURROGATE = lazy("[\ud800-\udfff]")
"""Pairs arrive combined (JSON decoding and UTF-8 both join them), so any match is lone."""


def scrub(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (ASCII text has none)."""
    if text.isascii():
        return text
    return _SURROGATE().sub("\ufffd", text) if _SURROGATE().search(text) else text


def scrub_json(value: Any) -> Any:
    """A JSON-like value (tool arguments) with every string scrubbed, keys included."""
    dumped = json.dumps(value, ensure_ascii=False)
    if not _SURROGATE().search(dumped):
        return value
    return json.loads(_SURROGATE().sub("\ufffd", dumped))


_CONTROL = lazy(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""C0 (but tab), DEL, C1, and the bidirectional overrides that reorder what is shown."""
_NAMED = {"\r": "\\r", "\n": "\\n"}


def visible(text: str) -> str:
    """`text` with every control character written as an escape (`\\r`, `\\x1b`, `\\u202e`)."""
    return _CONTROL().sub(lambda m: _escape(m.group()), text)


def _escape(char: str) -> str:
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


_TERMINAL = lazy(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""As `_CONTROL`, less newline and tab: the layout of a multi-line report survives."""


def terminal_safe(text: str) -> str:
    """`text` for a terminal, with every control character but newline and tab escaped.

    Why: a server's text (a model name, an error) printed raw can carry ESC sequences
    that write the clipboard (OSC 52), clear the screen or retitle the window; written
    as `\\x1b` they are shown, never obeyed."""
    return _TERMINAL().sub(lambda m: _escape(m.group()), text)


_USERINFO = lazy(r"(?<=://)[^/?#\s]*@")


def without_credentials(text: str) -> str:
    """`text` with the `user:password@` part of every URL in it removed."""
    return _USERINFO().sub("", text)

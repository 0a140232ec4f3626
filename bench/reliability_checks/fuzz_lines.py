"""The fuzzer's lines: a seeded generator, and the spec's verdict on each line.

`classify` reads shared/spec/serve-protocol-v1.md, not serve.py: for every line it
says what must follow (see fuzz.py for the kinds). `LineGen` makes valid commands,
mistyped and mutated ones, bad JSON, non-objects, invalid UTF-8, NUL and control
bytes, blank and unicode-space lines, unknown ids and fields, lone surrogates,
100k-deep nesting, 10 MB lines and large valid ones.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .common import MODEL

MAX_LINE_BYTES = 4 * 1024 * 1024
"""rift's documented line limit (frontends/serve.py); longer lines are refused with a warning."""
JSON_SPACE = b" \t\r\n"
TEN_MB = 10 * 1024 * 1024

COMMANDS = (
    "hello",
    "prompt",
    "answer",
    "edit_decision",
    "cancel",
    "undo",
    "list_sessions",
    "list_models",
    "set_model",
    "set_approval",
)


@dataclass
class Case:
    """One generated line and what the spec says must follow it."""

    line: bytes
    kind: str
    event: str | None = None
    also_warn: bool = False
    family: str = ""


# ------------------------------------------------------------ classification


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _strict_loads(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def classify(line: bytes, busy: bool) -> Case:
    """What the spec requires after `line`, given whether a turn is running."""
    if len(line) > MAX_LINE_BYTES:
        return Case(line, "warn")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return Case(line, "warn")
    if not line.strip(JSON_SPACE):
        return Case(line, "silent")
    try:
        command = _strict_loads(text)
    except (ValueError, RecursionError):
        return Case(line, "warn")
    if not isinstance(command, dict):
        return Case(line, "warn")
    name = command.get("cmd")
    if not isinstance(name, str) or name not in COMMANDS:
        return Case(line, "warn")
    case = _classify_command(name, command, busy)
    case.line = line
    return case


def _classify_command(name: str, cmd: dict[str, Any], busy: bool) -> Case:  # noqa: C901
    if name == "hello":
        bad = ("edit_review" in cmd and not isinstance(cmd["edit_review"], bool)) or (
            cmd.get("approve") is not None and not isinstance(cmd["approve"], bool)
        )
        return Case(b"", "event", "capabilities", also_warn=bad)
    if name == "prompt":
        text = cmd.get("text")
        if not isinstance(text, str):
            return Case(b"", "warn")
        if not text.strip():
            return Case(b"", "any")
        if busy or text.strip().startswith("/skill:"):
            return Case(b"", "warn")
        return Case(b"", "turn")
    if name == "answer":
        if "id" not in cmd or cmd["id"] is None:
            return Case(b"", "any")  # serve ignores an answer without id, like an unknown one
        if isinstance(cmd["id"], float) and cmd["id"].is_integer():
            return Case(b"", "any")
        if not _is_int(cmd["id"]) or ("text" in cmd and not isinstance(cmd["text"], str)):
            return Case(b"", "warn")
        return Case(b"", "silent")
    if name == "edit_decision":
        if isinstance(cmd.get("id"), float) and cmd["id"].is_integer():
            return Case(b"", "any")
        if "apply" not in cmd and _is_int(cmd.get("id")):
            return Case(b"", "any")
        content = cmd.get("content")
        if (
            not _is_int(cmd.get("id"))
            or not isinstance(cmd.get("apply"), bool)
            or (content is not None and not isinstance(content, str))
        ):
            return Case(b"", "warn")
        return Case(b"", "silent")
    if name == "cancel":
        return Case(b"", "cancel" if busy else "silent")
    if name == "undo":
        return Case(b"", "warn")  # busy: refused; idle: this session never wrote a file
    if name == "list_sessions":
        return Case(b"", "event", "sessions")
    if name == "list_models":
        return Case(b"", "silent")  # answered later by `models`; never a warning
    if name == "set_model":
        model = cmd.get("model")
        if not isinstance(model, str) or not model.strip() or busy:
            return Case(b"", "warn")
        return Case(b"", "switch")
    # set_approval
    if not isinstance(cmd.get("approve"), bool):
        return Case(b"", "warn")
    return Case(b"", "event", "approval_changed")


# ---------------------------------------------------------------- generation


class LineGen:
    """Seeded generator of valid, mistyped, mutated and hostile command lines."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.families: list[tuple[str, float, Callable[[], bytes]]] = [
            ("valid", 18, self.valid),
            ("wrong-types", 16, self.wrong_types),
            ("mutated", 18, self.mutated),
            ("bad-json", 9, self.bad_json),
            ("not-object", 4, self.not_object),
            ("bad-utf8", 6, self.bad_utf8),
            ("nul-and-control", 4, self.control_bytes),
            ("blank", 3, self.blank),
            ("unicode-space", 2, self.unicode_space),
            ("unknown-ids", 8, self.unknown_ids),
            ("unknown-fields", 6, self.unknown_fields),
            ("surrogates", 2, self.surrogates),
            ("deep-nesting", 0.4, self.deep),
            ("huge-10mb", 0.15, self.huge),
            ("large-valid", 0.15, self.large_valid),
        ]
        self._weights = [w for _, w, _ in self.families]

    def tour(self) -> Iterator[tuple[str, bytes]]:
        """One line of every family first, so even a short run meets each of them."""
        for name, _, make in self.families:
            yield name, make()

    def random_line(self) -> tuple[str, bytes]:
        name, _, make = self.rng.choices(self.families, self._weights)[0]
        return name, make()

    # --------------------------------------------------------------- values

    def text(self, limit: int = 40) -> str:
        rng = self.rng
        pools = [
            string.ascii_letters + " ",
            string.printable,
            "äöü€漢字🙂\u200b\u2028\t",
            "\\\"'{}[]:,",
        ]
        pool = rng.choice(pools)
        return "".join(rng.choice(pool) for _ in range(rng.randint(0, limit)))

    def any_value(self, depth: int = 0) -> Any:
        rng = self.rng
        kind = rng.randrange(9 if depth < 2 else 6)
        if kind == 0:
            return rng.choice([True, False])
        if kind == 1:
            return rng.choice([0, 1, -1, 7, 2**31, 2**63, 10**30, -(10**20)])
        if kind == 2:
            return rng.choice([0.5, 1.0, -2.0, 1e300, 3.14])
        if kind == 3:
            return self.text()
        if kind == 4:
            return None
        if kind == 5:
            return ""
        if kind == 6:
            return [self.any_value(depth + 1) for _ in range(rng.randint(0, 3))]
        if kind == 7:
            return {self.text(8): self.any_value(depth + 1) for _ in range(rng.randint(0, 3))}
        return self.text(200)

    def valid_command(self) -> dict[str, Any]:
        rng = self.rng
        name = rng.choice(COMMANDS)
        cmd: dict[str, Any] = {"cmd": name}
        if name == "hello":
            cmd["edit_review"] = rng.choice([True, False])
            if rng.random() < 0.5:
                cmd["approve"] = rng.choice([True, False, None])
        elif name == "prompt":
            cmd["text"] = rng.choice(["hi", "fix the bug", "/skill:nope do it", "  ", self.text()])
        elif name == "answer":
            cmd["id"] = rng.randint(1, 10**6)
            cmd["text"] = rng.choice(["allow", "deny", "trust", self.text()])
        elif name == "edit_decision":
            cmd["id"] = rng.randint(1, 10**6)
            cmd["apply"] = rng.choice([True, False])
            if rng.random() < 0.5:
                cmd["content"] = self.text()
        elif name == "set_model":
            cmd["model"] = rng.choice([MODEL, "no-such-model", "x/y", self.text(20)])
        elif name == "set_approval":
            cmd["approve"] = rng.choice([True, False])
        return cmd

    def dumps(self, obj: Any) -> bytes:
        return json.dumps(obj, ensure_ascii=self.rng.random() < 0.5).encode("utf-8")

    # ------------------------------------------------------------ families

    def valid(self) -> bytes:
        return self.dumps(self.valid_command())

    def wrong_types(self) -> bytes:
        cmd = self.valid_command()
        fields = [k for k in cmd if k != "cmd"] or ["cmd"]
        for key in self.rng.sample(fields, self.rng.randint(1, len(fields))):
            if self.rng.random() < 0.2:
                del cmd[key]
            else:
                cmd[key] = self.any_value()
        return self.dumps(cmd)

    def mutated(self) -> bytes:
        rng = self.rng
        data = bytearray(self.valid())
        for _ in range(rng.randint(1, 4)):
            op = rng.randrange(5)
            at = rng.randrange(len(data) + 1)
            if op == 0 and data:
                del data[min(at, len(data) - 1)]
            elif op == 1:
                data.insert(at, rng.randrange(256))
            elif op == 2 and data:
                data[min(at, len(data) - 1)] = rng.randrange(256)
            elif op == 3:
                data[at:at] = rng.choice([b'"', b"{", b"}", b"[", b",", b":", b"\\", b"null"])
            else:
                data = data[:at]
        return bytes(data).replace(b"\n", b" ")

    def bad_json(self) -> bytes:
        body = self.valid()
        options = [
            body[: self.rng.randrange(max(len(body), 1))],
            body + b" trailing",
            body + body,
            body.replace(b'"', b"'"),
            b'{"cmd":"list_sessions", /* comment */ "x":1}',
            b'{"cmd":"list_sessions","x":NaN}',
            b'{"cmd":"list_sessions","x":Infinity}',
            b'{"cmd":"list_sessions",}',
            b'{cmd:"list_sessions"}',
            b'{"cmd":"prompt","text":"unterminated',
            b'{"cmd":"prompt","text":"bad \\x escape"}',
            b"\xef\xbb\xbf" + body,  # a UTF-8 byte order mark
        ]
        return self.rng.choice(options)

    def not_object(self) -> bytes:
        return self.rng.choice(
            [b"42", b"-0.5e3", b'"prompt"', b"null", b"true", b"[]", b'[{"cmd":"undo"}]', b"{}"]
        )

    def bad_utf8(self) -> bytes:
        body = bytearray(self.valid())
        bad = self.rng.choice(
            [b"\xff", b"\xfe\xff", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]
        )
        at = self.rng.randrange(len(body) + 1)
        body[at:at] = bad
        return bytes(body).replace(b"\n", b" ")

    def control_bytes(self) -> bytes:
        options = [
            b'{"cmd":"prompt","text":"a\x00b"}',
            b"\x00",
            b'{"cmd":"list_sessions"}\x00',
            b'{"cmd":"prompt","text":"bell\x07"}',
            b'{"cmd":"answer","id":1,"text":"\x1b[31m"}',
        ]
        return self.rng.choice(options)

    def blank(self) -> bytes:
        return self.rng.choice([b"", b" ", b"\t", b"\r", b"  \t \r"])

    def unicode_space(self) -> bytes:
        return self.rng.choice(
            ["\x0c", "\x0b", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u3000", "\ufeff"]
        ).encode("utf-8")

    def unknown_ids(self) -> bytes:
        rng = self.rng
        ident = rng.choice([0, -1, 2**31, 2**64, 10**30, rng.randint(1, 10**9)])
        if rng.random() < 0.5:
            cmd: dict[str, Any] = {"cmd": "answer", "id": ident, "text": "allow"}
        else:
            cmd = {"cmd": "edit_decision", "id": ident, "apply": rng.choice([True, False])}
        return self.dumps(cmd)

    def unknown_fields(self) -> bytes:
        cmd = self.valid_command()
        for _ in range(self.rng.randint(1, 4)):
            cmd[self.text(12) or "x"] = self.any_value()
        cmd["cmd"] = cmd.pop("cmd")  # "cmd" need not come first
        return self.dumps(cmd)

    def surrogates(self) -> bytes:
        escape = self.rng.choice(["\\ud800", "\\udfff", "\\udc80", "\\ud83d"])
        return self.rng.choice(
            [
                f'{{"cmd":"prompt","text":"lone {escape} surrogate"}}',
                f'{{"cmd":"set_model","model":"m{escape}"}}',
                f'{{"cmd":"answer","id":3,"text":"{escape}"}}',
                f'{{"cmd":"list_sessions","{escape}":1}}',
            ]
        ).encode()

    def deep(self) -> bytes:
        depth = self.rng.choice([100_000, 200_000])
        return self.rng.choice(
            [
                b"[" * depth,
                b'{"a":' * depth,
                b'{"cmd":"list_sessions","x":' + b"[" * depth + b"]" * depth + b"}",
                b"[" * depth + b"]" * depth,
            ]
        )

    def huge(self) -> bytes:
        pad = "x" * TEN_MB
        return self.rng.choice(
            [
                json.dumps({"cmd": "prompt", "text": pad}).encode(),
                json.dumps({"cmd": "list_sessions", "junk": pad}).encode(),
                b"y" * TEN_MB,
            ]
        )

    def large_valid(self) -> bytes:
        size = self.rng.randint(1, 3) * 1024 * 1024
        return self.rng.choice(
            [
                json.dumps({"cmd": "list_sessions", "junk": "z" * size}).encode(),
                json.dumps({"cmd": "answer", "id": 77, "text": "w" * size}).encode(),
                json.dumps({"cmd": "set_approval", "approve": True, "pad": ["p"] * (size // 5)})
                .encode()
                .replace(b" ", b""),
            ]
        )

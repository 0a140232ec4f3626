"""Parsers for the write/edit guard that know what the formats really allow.

Judged by the wrong parser, the guard (tools/guard.py) refused valid files (issue 32):
a `tsconfig.json` with comments, Python 3.12 syntax while rift ran on 3.11.

- JSON with comments and trailing commas is read as such where its readers accept
  it (`tsconfig*.json`, `jsconfig*.json`, `.vscode/`, `*.jsonc`, dev container and
  eslintrc files); plain `.json` stays strict: `package.json` with a comment breaks npm.
- Python is compiled by the running interpreter first; only when that fails for a
  reason other than indentation (tree-sitter accepts a body indented too deep, the
  damage this guard exists for) does tree-sitter-python get the last word. Python 2
  syntax it also knows is refused (issue 44).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

_JSONC_NAMES = frozenset(
    {"devcontainer.json", ".devcontainer.json", ".eslintrc.json", "argv.json", ".swcrc"}
)


def allows_comments(path: Path) -> bool:
    """Whether `path` is a JSON file whose readers accept comments and trailing commas."""
    name = path.name.lower()
    if name.endswith((".jsonc", ".code-workspace")) or name in _JSONC_NAMES:
        return True
    if name.endswith(".json") and name.startswith(("tsconfig", "jsconfig")):
        return True
    return ".vscode" in (part.lower() for part in path.parts[:-1])


def strip_jsonc(text: str) -> str:
    """`text` with `//` and `/* */` comments blanked (newlines kept, so error lines stay
    right) and trailing commas before `}` or `]` dropped; strings untouched."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            end = _string_end(text, i)
            out.append(text[i:end])
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join(c if c == "\n" else " " for c in text[i:end]))
            i = end
        elif char == ",":
            j = i + 1
            while j < n and (text[j].isspace() or text.startswith(("//", "/*"), j)):
                j = _skip_gap(text, j)
            if j < n and text[j] in "}]":
                out.append(" ")
            else:
                out.append(",")
            i += 1
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    """Index just past the JSON string opening at `start` (or the end of the text)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return len(text)


def _skip_gap(text: str, i: int) -> int:
    """Past one whitespace character or one comment starting at `i`."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    return i + 1


def check_jsonc(text: str, name: str) -> None:
    """Raises ValueError when `text` is not JSON even with comments allowed."""
    json.loads(strip_jsonc(text))


def check_python(text: str, name: str) -> None:
    """Raises SyntaxError when `text` is not Python of any version tree-sitter knows.

    The interpreter's verdict stands for indentation, and whenever tree-sitter is
    not installed; otherwise a file only a newer Python parses is accepted.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes etc. are not our business
            compile(text, name, "exec", dont_inherit=True)
    except IndentationError:
        raise
    except SyntaxError:
        if not _newer_python(text):
            raise
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, deep nesting
        raise SyntaxError(str(exc) or type(exc).__name__) from exc


# Python 2 only: tree-sitter-python parses these, no Python 3 does.
_PY2_NODES = frozenset({"print_statement", "exec_statement", "<>"})


def _newer_python(text: str) -> bool:
    """Whether tree-sitter-python parses `text` as Python 3: no ERROR or MISSING
    node (`has_error` covers both) and no Python 2 statement or operator."""
    from rift.tools._outline import _parser

    parser = _parser("python")
    if parser is None:
        return False
    try:
        root = parser.parse(text.encode("utf-8", "surrogatepass")).root_node
    except (ValueError, RecursionError):
        return False
    return not root.has_error and not _holds_python2(root)


def _holds_python2(root: Any) -> bool:
    """Whether any node under `root` is a Python 2 statement or the `<>` operator."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in _PY2_NODES:
            return True
        stack.extend(node.children)
    return False

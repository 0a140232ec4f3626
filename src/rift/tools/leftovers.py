"""What a Python edit left undone: names still used that the file no longer defines.

A small model asked to rename `f` renames the `def` and stops, leaving a call of
`f` to fail at run time (issue 29); the parse check cannot see that, but a name
defined before the change, still used after it and defined nowhere now can. The
check is deliberately coarse (a name bound anywhere in the module counts as
defined) so it never cries wolf on correct code; a star import is not judged.
"""

from __future__ import annotations

import builtins
import importlib
import re
import warnings
from typing import Any

_MODULE_NAMES = frozenset(
    {"__file__", "__name__", "__doc__", "__builtins__", "__spec__", "__loader__", "__package__",
     "__path__", "__annotations__", "__dict__", "__class__", "__debug__"}
)  # fmt: skip
_IDENT = re.compile(r"[A-Za-z_]\w*")


def parse(text: str) -> Any:
    """The module's AST, or None when `text` is not Python this interpreter reads."""
    ast = importlib.import_module("ast")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _bound(node: Any, ast: Any) -> list[str]:
    """The names `node` binds (never loads)."""
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        return [node.id]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    name = getattr(node, "name", None) or getattr(node, "rest", None)  # except-as, match
    return [name] if isinstance(name, str) else []


def _names(text: str) -> tuple[set[str], dict[str, int]] | None:
    """(names bound anywhere, names loaded with their first line); None when `text` does
    not parse or has a star import (anything could then be defined)."""
    tree = parse(text)
    if tree is None:
        return None
    ast = importlib.import_module("ast")
    bound: set[str] = set()
    loaded: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return None
        bound.update(_bound(node, ast))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loaded[node.id] = min(node.lineno, loaded.get(node.id, node.lineno))
    return bound, loaded


def undefined_names(text: str) -> dict[str, int] | None:
    """Names loaded somewhere in `text` and bound nowhere in it (nor builtins), with the
    line of their first use; None when the text does not parse or has a star import."""
    names = _names(text)
    if names is None:
        return None
    bound, loaded = names
    known = bound | set(dir(builtins)) | _MODULE_NAMES
    return {name: line for name, line in loaded.items() if name not in known}


def new_undefined(before: str | None, after: str) -> list[tuple[str, int]]:
    """(name, line) for each name `after` uses without defining it that `before` defined:
    what a rename or a removal left behind, never a name that was missing already."""
    now = undefined_names(after)
    then = None if before is None or not now else _names(before)
    if not now or then is None:
        return []
    return sorted(((n, line) for n, line in now.items() if n in then[0]), key=lambda p: p[1])


def renamed(old: str, new: str) -> tuple[str, str] | None:
    """(old name, new name) when the edit's texts differ by one identifier swapped for another."""
    gone = set(_IDENT.findall(old)) - set(_IDENT.findall(new))
    came = set(_IDENT.findall(new)) - set(_IDENT.findall(old))
    if len(gone) != 1 or len(came) != 1:
        return None
    pair = (gone.pop(), came.pop())
    return pair if replace_identifier(old, *pair)[0] == new else None


def replace_identifier(text: str, old: str, new: str) -> tuple[str, int]:
    """Every use of the identifier `old` in `text` renamed to `new` (whole words only, not a
    string prefix like the `f` of f"..."), and how many there were."""
    pattern = re.compile(rf"(?<!\w){re.escape(old)}(?![\w'\"])")
    return pattern.subn(new, text)


def _rename_in_fstring(token: str, old: str, new: str) -> tuple[str, int]:
    """An f-string token (Python 3.11 keeps it whole) with `old` renamed inside its `{...}`
    fields only: the literal text around them is prose ("area 6" stays "area 6")."""
    quote = min((token.find(q) for q in ("'", '"') if q in token), default=0)
    out, uses, i = [token[:quote]], 0, quote
    while i < len(token):
        if token.startswith(("{{", "}}"), i):  # an escaped brace is literal text
            out.append(token[i : i + 2])
            i += 2
        elif token[i] != "{":
            out.append(token[i])
            i += 1
        else:
            depth, end = 1, i + 1
            while end < len(token) and depth:
                depth += {"{": 1, "}": -1}.get(token[end], 0)
                end += 1
            field, count = replace_identifier(token[i:end], old, new)
            out.append(field)
            uses, i = uses + count, end
    return "".join(out), uses


def _prefix(token: str) -> str:
    """A string token's prefix letters, lower-cased (`rb`, `f`, ...)."""
    return re.split(r"['\"]", token, maxsplit=1)[0].lower()


def rename_in_python(text: str, old: str, new: str) -> tuple[str, int] | None:
    """Python source with the name `old` renamed to `new` wherever the code uses it (names,
    attributes, the fields of f-strings) and nowhere in comments or string text; None when
    the source does not tokenize."""
    tokenize = importlib.import_module("tokenize")
    io = importlib.import_module("io")
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    edits: list[tuple[int, int, str]] = []
    uses = 0
    for tok in tokens:
        start = offsets[tok.start[0] - 1] + tok.start[1]
        end = offsets[tok.end[0] - 1] + tok.end[1]
        if tok.type == tokenize.NAME and tok.string == old:
            edits.append((start, end, new))
            uses += 1
        elif tok.type == tokenize.STRING and "f" in _prefix(tok.string):
            renamed, count = _rename_in_fstring(tok.string, old, new)
            if count:
                edits.append((start, end, renamed))
                uses += count
    for start, end, replacement in reversed(edits):
        text = text[:start] + replacement + text[end:]
    return text, uses


def leftover_note(raw: str, before: str | None, after: str, old: str = "", new: str = "") -> str:
    """The sentence telling the model what its change left undone ("" when nothing)."""
    missing = new_undefined(before, after)
    if not missing:
        return ""
    name, line = missing[0]
    code = after.split("\n")[line - 1].strip()
    note = (
        f" Not done yet: line {line} of {raw} still uses `{name}` (`{code}`), which {raw} no "
        "longer defines."
    )
    pair = renamed(old, new)
    if pair is not None and pair[0] == name:
        note += (
            f" Rename it everywhere: edit {raw} with old_string `{name}`, new_string "
            f"`{pair[1]}` and replace_all true."
        )
    else:
        note += " Change that line too."
    return note


def _top_level(text: str) -> list[str] | None:
    """Names of the module's top-level functions, classes and assignments (None: no parse)."""
    tree = parse(text)
    if tree is None:
        return None
    ast = importlib.import_module("ast")
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


def dropped_definitions(before: str, after: str, words: str) -> list[str]:
    """Top-level names `before` defines that `after` lost and the task (`words`) never
    names: a whole-file rewrite that sent back only the new function."""
    old, new = _top_level(before), _top_level(after)
    if old is None or new is None:
        return []
    mentioned = set(_IDENT.findall(words))
    return [name for name in dict.fromkeys(old) if name not in new and name not in mentioned]

"""Did the change do what the task's own words ask? The names a task spells out, checked.

A small model asked to "rename the function area to rect_area" sent back its file
whole with a comment added and the blank lines gone, and rift reported success:
every guard passed (it parses, nothing was dropped), but nothing the task asked for
happened. The words of a task often name what must be true afterwards, and those
few forms are checked here, after the turn's edits and before it may end (once,
with core/aftercheck.py's other checks):
- "rename X to Y": Y appears in a changed file and X is used in none of them;
- "add a function/class/method X": some changed file defines X;
- a change that left every changed Python or JSON file meaning what it meant
  before (only blank lines, comments or layout moved) when the task is not about
  layout, comments or formatting.
Names come from the task's words only; a task that names nothing is not judged.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any

from rift.patterns import lazy
from rift.tools import guard, leftovers

_NAME = r"`?([A-Za-z_]\w*)`?(?:\(\))?"
_KIND = r"(?:(?:the\s+)?(?:function|method|class|variable|constant|field|attribute|argument|parameter|def)\s+)?"  # noqa: E501
_RENAME = lazy(
    rf"\brename\s+(?:the\s+)?{_KIND}{_NAME}(?:\s+(?:in|from|of)\s+\S+)?\s+(?:to|as|into)\s+{_NAME}",
    re.IGNORECASE,
)
_ADD = lazy(
    r"\b(?:add|create|write|implement|define)\s+(?:a\s+|an\s+|the\s+)?(?:new\s+)?"
    rf"(?:function|method|class|helper)\s+(?:called\s+|named\s+)?{_NAME}",
    re.IGNORECASE,
)
_WRONG_RESULT = lazy(
    r"\b(?:returns?|gives?|prints?|outputs?|raises?|yields?)\b.*\b(?:but|instead|should|expected)\b"
    r"|\b(?:wrong|incorrect|bug\w*|broken)\b",
    re.IGNORECASE | re.DOTALL,
)
_DROPS_KEYS = lazy(r"\b(?:remov\w*|delet\w*|drop\w*|renam\w*|rewrit\w*|replac\w*)\b", re.IGNORECASE)
_LAYOUT_TASK = lazy(
    r"\b(comments?|format\w*|whitespace|blank|indent\w*|style|pep ?8|lint\w*|spacing|newlines?|"
    r"sort\w*|reorder\w*|order)\b",
    re.IGNORECASE,
)


def renames(words: str) -> list[tuple[str, str]]:
    """(old, new) for each "rename OLD to NEW" in the task's words."""
    return [(m.group(1), m.group(2)) for m in _RENAME().finditer(words) if m.group(1) != m.group(2)]


def added_names(words: str) -> list[str]:
    """The names a task asks to add ("add a function square(x) ...": square)."""
    return [m.group(1) for m in _ADD().finditer(words)]


def _python_names(tree: Any) -> tuple[dict[str, int], set[str]]:
    """(every identifier the code uses or binds with its first line, names it defines)."""
    ast = importlib.import_module("ast")
    used: dict[str, int] = {}
    defined: set[str] = set()
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Name):
            name = node.id
        elif isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = node.name
            defined.add(name)
        elif isinstance(node, ast.arg) or (isinstance(node, ast.keyword) and node.arg):
            name = node.arg
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            defined.add(node.id)
        if name is not None:
            line = getattr(node, "lineno", 1)
            used[name] = min(line, used.get(name, line))
    return used, defined


def _names(path: Path, text: str) -> tuple[dict[str, int], set[str]]:
    """Identifiers in a changed file: through the AST for Python, whole words otherwise."""
    if path.suffix in (".py", ".pyi"):
        tree = leftovers.parse(text)
        if tree is not None:
            return _python_names(tree)
    used: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), 1):
        for word in re.findall(r"[A-Za-z_]\w*", line):
            used.setdefault(word, number)
    return used, set(used)


def _meaning(path: Path, text: str) -> str | None:
    """What a file means with its layout set aside (None: no such notion for this file)."""
    if path.suffix in (".py", ".pyi"):
        tree = leftovers.parse(text)
        return None if tree is None else importlib.import_module("ast").dump(tree)
    if path.suffix == ".json":
        try:
            return json.dumps(json.loads(text), sort_keys=True)
        except ValueError:
            return None
    return None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _rename_notes(
    words: str,
    files: dict[str, tuple[str | None, str]],
    names: dict[str, tuple[dict[str, int], set[str]]],
) -> list[str]:
    notes: list[str] = []
    for old, new in renames(words):
        said = f"The task renames `{old}` to `{new}`, but "
        if not any(new in used for used, _ in names.values()):
            said += f"no file you changed has `{new}` yet"
        left = [(shown, used[old]) for shown, (used, _) in names.items() if old in used]
        if left:
            shown, line = left[0]
            code = files[shown][1].split("\n")[line - 1].strip()
            said += (" and" if said.endswith("yet") else "") + (
                f" line {line} of {shown} still uses `{old}` (`{code}`). Rename it everywhere: "
                f"edit {shown} with old_string `{old}`, new_string `{new}` and replace_all true."
            )
        elif said.endswith("yet"):
            said += "."
        if said.endswith("."):
            notes.append(said)
    return notes


def _without_docstrings(tree: Any) -> Any:
    ast = importlib.import_module("ast")
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and len(body) > 1
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:]
    return tree


def _code_run_by(text: str, name: str) -> str | None:
    """The code a call of `name` runs, as one AST dump: every def of `name` and each
    top-level statement binding a name those defs use, docstrings set aside (None: the
    file does not parse or defines no `name`)."""
    ast = importlib.import_module("ast")
    tree = leftovers.parse(text)
    if tree is None:
        return None
    tree = _without_docstrings(tree)
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    defs = [n for n in ast.walk(tree) if isinstance(n, kinds) and n.name == name]
    if not defs:
        return None
    used = {n.id for d in defs for n in ast.walk(d) if isinstance(n, ast.Name)}
    used |= {n.attr for d in defs for n in ast.walk(d) if isinstance(n, ast.Attribute)}
    parts = [ast.dump(d) for d in defs]
    for statement in tree.body:
        if statement in defs:
            continue
        bound = {getattr(statement, "name", None)} | {
            n.id
            for n in ast.walk(statement)
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        }
        if bound & used:
            parts.append(ast.dump(statement))
    return "\n".join(parts)


def _unchanged_claims(words: str, files: dict[str, tuple[str | None, str]]) -> list[str]:
    """The note for a task that reports a wrong result of a function when every changed
    file defines it and the code it runs is as before."""
    if not _WRONG_RESULT().search(words) or _LAYOUT_TASK().search(words):
        return []
    notes: list[str] = []
    for shown, (before, now) in files.items():
        claims = [] if before is None else guard.claimed_calls(words, before)
        if not claims:
            return []  # a changed file the claim is not about: maybe the fix is there
        for _, name in claims:
            code = _code_run_by(now, name)
            if code is None or code != _code_run_by(before or "", name):
                return []
        name = claims[0][1]
        notes.append(
            f"Your change left the code of {name} as it was in {shown}."
            + guard.trace_hint(words, now)
        )
    return notes[:1]


def _keys(value: Any, prefix: str = "") -> set[str]:
    """Every key path in a JSON value ("tags", "server.port")."""
    if not isinstance(value, dict):
        return set()
    found: set[str] = set()
    for key, inner in value.items():
        path = f"{prefix}{key}"
        found |= {path} | _keys(inner, path + ".")
    return found


def _lost_keys(words: str, files: dict[str, tuple[str | None, str]]) -> list[str]:
    """The note for JSON keys a change dropped that the task does not remove or rename."""
    if _DROPS_KEYS().search(words):
        return []
    notes: list[str] = []
    for shown, (before, now) in files.items():
        if not shown.endswith(".json") or before is None:
            continue
        try:
            lost = sorted(_keys(json.loads(before)) - _keys(json.loads(now)))
        except ValueError:
            continue
        if lost:
            keys = ", ".join(f'"{key}"' for key in lost[:3])
            notes.append(
                f"{shown} no longer has the key {keys}: keep every key and change only the "
                "value the task names."
            )
    return notes


def task_problems(words: str, changed: dict[Path, bytes | None], shown: dict[Path, str]) -> str:
    """The `[system]` message naming what the task's words ask that the change has not done
    ("" when nothing, or when the words name nothing checkable)."""
    files: dict[str, tuple[str | None, str]] = {}
    for path, prior in changed.items():
        now = _read(path)
        if now is not None:
            before = None if prior is None else prior.decode("utf-8", errors="replace")
            files[shown[path]] = (before, now)
    if not files:
        return ""
    paths = {shown[p]: p for p in changed if shown[p] in files}
    names = {key: _names(paths[key], now) for key, (_, now) in files.items()}
    notes = _rename_notes(words, files, names)
    for name in added_names(words):
        if not any(name in defined for _, defined in names.values()):
            notes.append(
                f"The task asks to add `{name}`, but no file you changed defines `{name}` yet."
            )
    notes += _unchanged_claims(words, files) + _lost_keys(words, files)
    if not notes and not _LAYOUT_TASK().search(words):
        same = [
            key
            for key, (before, now) in files.items()
            if before is not None
            and (meaning := _meaning(paths[key], now)) is not None
            and meaning == _meaning(paths[key], before)
        ]
        if same and len(same) == len(files):
            notes.append(
                f"Your change to {', '.join(same)} moved only blank lines, comments or layout: "
                f"the code means what it meant before, so the task is not done yet. Make the "
                f"change the task asks for: {words.strip()}"
            )
    return "[system] Not done yet. " + " ".join(notes) if notes else ""

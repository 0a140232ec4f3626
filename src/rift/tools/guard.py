"""What write and edit refuse before a byte reaches disk, so a small model cannot damage a file.

Small models write the read tool's output back as the file (template tags and
line numbers included), fence whole files, break syntax with a wrong indent and
name `repo/x.py` from inside `repo/`. Each check is a pure function of the
proposed text (and the text it replaces) returning the sentence the model reads
instead of a success. Only what the change adds is judged, so a file that
already holds `<tool_call>` can still be edited.

The syntax check covers Python, JSON (with comments where its readers allow
them), TOML, and YAML when PyYAML is installed (tools/syntax_check.py). A file
that did not parse before the change may be changed freely: the model may be
fixing it.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rift.text.patterns import lazy
from rift.tools.leftovers import parse as parse_python

_TEMPLATE_TOKENS = lazy(
    r"<\|(?:im_start|im_end|endoftext|eot_id|start_header_id|end_header_id|fim_[a-z]+"
    r"|file_sep|repo_name|begin_of_text|end_of_text|assistant|user|system)\|>"
    r"|</?tool_(?:call|response|calls|result)>"
)
_NUMBERED = lazy(r"^( *)(\d+)\t")
"""The read tool's prefix: the line number right-aligned in 5 columns, then a tab."""
_READ_WIDTH = 5
_WHOLE_FENCE = lazy(r"\A\s*```[A-Za-z0-9_+.-]*[ \t]*\n(.*?)\n?```[ \t]*\n?\s*\Z", re.DOTALL)
_CODE_SUFFIXES = (
    ".py .pyi .js .jsx .mjs .cjs .ts .tsx .mts .cts .json .jsonc .toml .yaml .yml .go .rs "
    ".c .h .cc .cpp .cxx .hpp .hh .java .kt .kts .scala .rb .php .cs .swift .m .mm .lua "
    ".sh .bash .zsh .fish .ps1 .sql .css .scss .sass .less .vue .svelte .dart .ex .exs "
    ".erl .hs .ml .mli .clj .r .jl .zig .nim .pl .pm .tf .hcl .ini .cfg .gradle .cmake "
    ".proto .graphql "
)
_CODE_TYPES = frozenset(_CODE_SUFFIXES.split())
"""Source and config types whose text can never open with a markdown fence or a chat
template wrapper: there, and only there, such a wrapper proves model debris. A README
without an extension, a `.txt` note or an `.xml` fixture may hold either on purpose."""


# ------------------------------------------------------------ content checks


def template_tokens(new: str, old: str = "") -> list[str]:
    """Chat-template tokens that `new` holds and `old` does not."""
    found = dict.fromkeys(m.group() for m in _TEMPLATE_TOKENS().finditer(new))
    return [token for token in found if token not in old]


def _numbered_lines(text: str) -> int:
    """Lines that carry the read tool's `    12\\t` prefix (padded to its width)."""
    count = 0
    for line in text.split("\n"):
        match = _NUMBERED().match(line)
        if match and len(match.group(1)) + len(match.group(2)) >= _READ_WIDTH:
            count += 1
    return count


def has_line_numbers(text: str) -> bool:
    """Most non-blank lines start with the read tool's line-number prefix."""
    lines = [line for line in text.split("\n") if line.strip()]
    return bool(lines) and _numbered_lines(text) * 2 >= len(lines)


def strip_line_numbers(text: str) -> str:
    """`text` without the read tool's prefixes (only lines that carry one are changed)."""
    out = []
    for line in text.split("\n"):
        match = _NUMBERED().match(line)
        padded = match and len(match.group(1)) + len(match.group(2)) >= _READ_WIDTH
        out.append(line[match.end() :] if match and padded else line)
    return "\n".join(out)


def proves_debris(path: Path | None) -> bool:
    """Whether a fence or template wrapper around the whole of `path`'s text can only be
    debris (a source or config type; None: unknown, judged as before)."""
    return path is None or path.suffix.lower() in _CODE_TYPES


def strip_debris(text: str, path: Path, small: bool = False) -> str:
    """A whole-file template wrapper and markdown fence taken off, where the file type
    proves them debris; a small model's wrapper is taken off any file (it wraps every
    file it writes in the template's tags, seen on the tiny tier)."""
    if small or proves_debris(path):
        text = strip_template_wrapper(text)
    return strip_whole_fence(text, path) if proves_debris(path) else text


def content_problem(
    new: str, old: str, tool: str, path: Path | None = None, small: bool = True
) -> str | None:
    """Why `new` must not replace `old`, as advice to the model; None when it may.

    `tool` is "write" or "edit": the advice names what that tool should be sent.
    Template markup is refused in source and config files, and anywhere from a
    small model; a capable model may write it into a document or a fixture.
    """
    field = "content" if tool == "write" else "new_string"
    tokens = template_tokens(new, old) if small or proves_debris(path) else []
    if tokens:
        shown = ", ".join(tokens[:3])
        return (
            f"{tool} refused: {field} contains chat-template markup ({shown}) copied from a "
            "tool result; it is not part of the file. Send only the file's own text"
            + (", and prefer edit to change an existing file." if tool == "write" else ".")
        )
    if has_line_numbers(new) and not has_line_numbers(old):
        return (
            f"{tool} refused: {field} starts its lines with the read tool's line numbers "
            "(like `    1<TAB>`); they are not part of the file. Send the code without them"
            + (", and prefer edit to change an existing file." if tool == "write" else ".")
        )
    return None


_WRAPPED = lazy(
    r"\A\s*<(tool_response|tool_call|tool_result)>[ \t]*\n?(.*?)\n?[ \t]*(?:</\1>\s*)?\Z", re.DOTALL
)


def strip_template_wrapper(text: str) -> str:
    """Text wrapped whole in the chat template's `<tool_response>` tags, unwrapped.

    A small model sees every tool result inside those tags and often wraps a file's
    content the same way. Only a wrapper around everything is taken off, and only when
    what it holds has no other template markup; `content_problem` answers the rest.
    """
    match = _WRAPPED().match(text)
    if match is None or not match.group(2).strip() or _TEMPLATE_TOKENS().search(match.group(2)):
        return text  # a bare tag holds no file: left for the refusal
    body = match.group(2)
    return body + "\n" if body and not body.endswith("\n") else body


def strip_whole_fence(text: str, path: Path) -> str:
    """Whole-file content wrapped in one markdown fence, unwrapped (source and config
    files only: a README or a note may be one fenced block on purpose)."""
    if not proves_debris(path):
        return text
    match = _WHOLE_FENCE().match(text)
    if match is None or "```" in match.group(1):
        return text
    body = match.group(1)
    return body + "\n" if body and not body.endswith("\n") else body


# ------------------------------------------------------------- syntax check


def _check_python(text: str, name: str) -> None:
    from rift.tools.syntax_check import check_python  # tree-sitter only when compile fails

    check_python(text, name)


def _check_json(text: str, name: str) -> None:
    json.loads(text)


def _check_toml(text: str, name: str) -> None:
    importlib.import_module("tomllib").loads(text)


def _check_yaml(text: str, name: str) -> None:
    yaml = importlib.import_module("yaml")
    list(yaml.safe_load_all(text))


_CHECKERS: dict[str, Callable[[str, str], None]] = {
    ".py": _check_python,
    ".pyi": _check_python,
    ".json": _check_json,
    ".toml": _check_toml,
    ".yaml": _check_yaml,
    ".yml": _check_yaml,
}
_LANGUAGE = {
    ".py": "Python",
    ".pyi": "Python",
    ".json": "JSON",
    ".jsonc": "JSON with comments",
    ".toml": "TOML",
}


def _checker(path: Path) -> Callable[[str, str], None] | None:
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml") and importlib.util.find_spec("yaml") is None:
        return None
    from rift.tools.syntax_check import allows_comments, check_jsonc

    if suffix in (".json", ".jsonc", ".code-workspace") and allows_comments(path):
        return check_jsonc
    return _CHECKERS.get(suffix)


def syntax_error(path: Path, text: str) -> str | None:
    """One line saying why `text` does not parse as `path`'s format; None when it does
    (or the format is not one rift knows)."""
    check = _checker(path)
    if check is None:
        return None
    try:
        check(text, path.name)
    except SyntaxError as exc:
        where = f"line {exc.lineno}: " if exc.lineno else ""
        return f"{where}{exc.msg}"
    except Exception as exc:  # JSONDecodeError, TOMLDecodeError; YAML's share no stdlib base
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return None


def language(path: Path) -> str:
    return _LANGUAGE.get(path.suffix.lower(), path.suffix.lstrip(".").upper() or "its format")


def breaks_syntax(path: Path, old: str | None, new: str) -> str | None:
    """The parse error `new` introduces, when `old` parsed (or the file is new); else None."""
    error = syntax_error(path, new)
    if error is None:
        return None
    if old is not None and syntax_error(path, old) is not None:
        return None  # it was broken already: the model may be mending it step by step
    return error


def syntax_refusal(tool: str, raw: str, path: Path, error: str) -> str:
    """The refusal the model reads when a change would leave `raw` unparseable."""
    hint = (
        "Check the indentation of new_string against the lines around it and that every "
        "bracket and quote is closed."
        if tool == "edit"
        else "Send the complete, valid file, or use edit to change only the lines that need it."
    )
    return (
        f"{tool} refused: after this change {raw} would no longer parse as {language(path)} "
        f"({error}); the file was left unchanged. {hint}"
    )


# ------------------------------------------------------------- dead code

_ENDS_BLOCK = ("Return", "Raise", "Break", "Continue")
_DEFINES = ("FunctionDef", "AsyncFunctionDef", "ClassDef")


def _blocks(tree: Any) -> list[list[Any]]:
    ast = importlib.import_module("ast")
    found: list[list[Any]] = []
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block:
                found.append(block)
    return found


def unreachable_lines(tree: Any) -> list[int]:
    """Lines of statements that follow a return, raise, break or continue in their block."""
    lines: list[int] = []
    for block in _blocks(tree):
        for at, statement in enumerate(block):
            if type(statement).__name__ in _ENDS_BLOCK:
                lines.extend(later.lineno for later in block[at + 1 :])
                break
    return sorted(lines)


def redefined_lines(tree: Any) -> list[int]:
    """Lines of undecorated functions and classes whose name the same block defined above
    (decorated ones are left alone: property setters, overloads, registrations)."""
    lines: list[int] = []
    for block in _blocks(tree):
        seen: set[str] = set()
        for statement in block:
            if type(statement).__name__ not in _DEFINES:
                continue
            if statement.name in seen and not statement.decorator_list:
                lines.append(statement.lineno)
            seen.add(statement.name)
    return sorted(lines)


_DEFECTS: tuple[tuple[Callable[[Any], list[int]], str, str], ...] = (
    (
        unreachable_lines,
        "unreachable after a return, raise, break or continue",
        "To change what the code does, replace the old line instead of adding a new one above it.",
    ),
    (
        redefined_lines,
        "defined twice (a second definition of a name defined above it)",
        "Keep every other function as it is: old_string should hold only the lines to change.",
    ),
)


def code_defects(tool: str, raw: str, path: Path, old: str | None, new: str) -> str | None:
    """The refusal when a Python change leaves more dead or doubly-defined code than before
    (a new `return` above the old body, a second `add` in place of `mul`): both still parse.
    Judged only for small models: "return at the top" is a fair request of a capable one.
    """
    if path.suffix.lower() not in (".py", ".pyi"):
        return None
    after = parse_python(new)
    before = None if old is None else parse_python(old)
    if after is None or (old is not None and before is None):
        return None  # the syntax check speaks for unparseable text
    for find, what, advice in _DEFECTS:
        now = find(after)
        count = len(now) - (0 if before is None else len(find(before)))
        if count > 0:
            code = new.split("\n")[now[0] - 1].strip()
            return (
                f"{tool} refused: it would leave {count} statement{'' if count == 1 else 's'} "
                f"of {raw} {what} (line {now[0]}: `{code}`); the file was left unchanged. "
                f"{advice}"
            )
    return None


# ----------------------------------------------------------------- paths


def project_relative(cwd: Path, raw: str, overwrite: bool = False) -> tuple[str, str]:
    """`raw` with a leading copy of the project folder's own name dropped, and a note.

    Inside `repo/`, a small model asked for `x.py` often writes `repo/x.py`; with no
    `repo/` of its own in the project that can only mean `x.py`. For a capable model's
    write (`overwrite`) the prefix is dropped only when no file is there already, so
    `repo/main.py` never replaces the root `main.py`. Returns (path, note or "").
    """
    parts = Path(raw).parts
    if len(parts) < 2 or Path(raw).is_absolute() or parts[0] != cwd.name:
        return raw, ""
    if os.path.lexists(cwd / parts[0]):
        return raw, ""
    fixed = str(Path(*parts[1:]))
    if overwrite and (cwd / fixed).exists():
        # Ambiguous: a new package folder named like the project, or the root file? A
        # write must not replace a file the model did not name (issue 30).
        return raw, ""
    return fixed, (
        f" (note: paths are relative to the project folder {cwd.name}/, so {raw} means {fixed};"
        f" write {fixed} next time)"
    )


_CLAIMED_CALL = lazy(r"(?<![\w.])([A-Za-z_]\w*)\(([^()\n]{0,60})\)")


def claimed_calls(words: str, source: str) -> list[tuple[str, str]]:
    """(call, name) for each call in the task's words to a function `source` defines
    ("is_adult(18) returns False": ("is_adult(18)", "is_adult"))."""
    return [
        (found.group(0), found.group(1))
        for found in _CLAIMED_CALL().finditer(words)
        if re.search(
            rf"^\s*(async\s+)?def\s+{re.escape(found.group(1))}\s*\(", source, re.MULTILINE
        )
    ]


def trace_hint(words: str, source: str) -> str:
    """For a task that reports a wrong result of a function the file defines ("is_adult(18)
    returns False"), a nudge to step through that call: a small model that sees nothing
    wrong sends the file back unchanged. A call to a function not defined yet gets ""."""
    calls = claimed_calls(words, source)
    if not calls:
        return ""
    call, name = calls[0]
    return (
        f" The task says {call} gives the wrong result: go through {name} line by"
        " line with those arguments, find the expression whose result differs from"
        " what the task expects, and change that expression."
    )

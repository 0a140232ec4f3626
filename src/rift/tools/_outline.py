"""Symbol outlines of source files: classes, functions and methods with their line numbers.

A small window cannot afford a 3000-line file to find one method; its outline costs
a few hundred tokens and tells which range to read (`outline`, `repo_map`, `read`).
tree-sitter (the `outline` extra) recovers from syntax errors, so a half-edited file
still outlines; without it Python falls back to `ast` and other languages get none.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from msgspec import Struct

SIGNATURE_CAP = 200

EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
}

# Grammar package and the function returning its language pointer.
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
}

_JS_SYMBOLS = frozenset(
    {
        "class_declaration",
        "abstract_class_declaration",
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "abstract_method_signature",
        "internal_module",
    }
)
_SYMBOLS: dict[str, frozenset[str]] = {
    "python": frozenset({"class_definition", "function_definition"}),
    "javascript": _JS_SYMBOLS,
    "typescript": _JS_SYMBOLS,
    "tsx": _JS_SYMBOLS,
    "go": frozenset({"function_declaration", "method_declaration", "type_spec"}),
    "rust": frozenset(
        {
            "function_item",
            "function_signature_item",
            "struct_item",
            "enum_item",
            "trait_item",
            "impl_item",
            "mod_item",
            "type_item",
            "macro_definition",
        }
    ),
}
"""Node types that are symbols. Function bodies are not searched (local helpers are noise)."""

_CONTAINERS = frozenset(
    {
        "class_definition",
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "internal_module",
        "impl_item",
        "trait_item",
        "mod_item",
    }
)
"""Symbols whose body holds further symbols (methods, nested types)."""

_PASS_THROUGH = frozenset(
    {
        "decorated_definition",
        "export_statement",
        "lexical_declaration",
        "variable_declaration",
        "variable_declarator",
        "type_declaration",
        "declaration_list",
        "class_body",
        "block",
        "statement_block",
        "interface_body",
        "expression_statement",
        "ambient_declaration",
        "program",
        "module",
        "source_file",
    }
)
"""Non-symbol nodes searched for symbols: wrappers (exports, decorators) and container bodies."""


class Symbol(Struct, frozen=True):
    line: int
    """1-based."""
    depth: int
    signature: str


def supported(path: Path) -> bool:
    return path.suffix.lower() in EXTENSIONS


def outline(path: Path, text: str) -> list[Symbol] | None:
    """The file's symbols in source order, or None when its type has no outline here."""
    language = EXTENSIONS.get(path.suffix.lower())
    if language is None:
        return None
    parser = _parser(language)
    try:
        if parser is not None:
            return list(_walk_tree(parser.parse(text.encode("utf-8")).root_node, language))
        if language == "python":
            return _python_ast(text)
    except (RecursionError, MemoryError):  # a 200,000-term expression: no outline, no crash
        return None
    return None


def render(symbols: list[Symbol]) -> str:
    """One line per symbol, numbered as `read` numbers lines so ranges can be read next."""
    if not symbols:
        return "(no symbols found)"
    return "\n".join(f"{s.line:>5}\t{'  ' * s.depth}{s.signature}" for s in symbols)


# ---------------------------------------------------------------- tree-sitter


@cache
def _parser(language: str) -> Any:
    """A tree-sitter parser for `language`, or None when the packages are not installed."""
    module_name, function = _GRAMMARS[language]
    try:
        import tree_sitter

        grammar = importlib.import_module(module_name)
    except ImportError:
        return None
    return tree_sitter.Parser(tree_sitter.Language(getattr(grammar, function)()))


MAX_NESTING = 100
"""Syntax nesting below which symbols are not looked for: a generated file with thousands
of nested modules or blocks would otherwise exhaust Python's recursion limit (issue 30)."""


def _walk_tree(node: Any, language: str, depth: int = 0, level: int = 0) -> Iterator[Symbol]:
    if level > MAX_NESTING:
        return
    symbols = _SYMBOLS[language]
    for child in node.named_children:
        kind = child.type
        if kind in symbols or _is_arrow_binding(child):
            yield Symbol(child.start_point[0] + 1, depth, _signature(child))
            if kind in _CONTAINERS:
                body = child.child_by_field_name("body")
                if body is not None:
                    yield from _walk_tree(body, language, depth + 1, level + 1)
        elif kind in _PASS_THROUGH:
            yield from _walk_tree(child, language, depth, level + 1)


_DECLARATIONS = ("lexical_declaration", "variable_declaration")


def _is_arrow_binding(node: Any) -> bool:
    """`const f = (a) => ...` / `= function () {}`: a function in all but syntax."""
    if node.type != "variable_declarator":
        return False
    value = node.child_by_field_name("value")
    return value is not None and value.type in ("arrow_function", "function_expression", "function")


def _signature(node: Any) -> str:
    """The node's source up to its body (or its first line), whitespace collapsed."""
    body = node.child_by_field_name("body")
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        body = value.child_by_field_name("body") if value is not None else None
        if node.parent is not None and node.parent.type in _DECLARATIONS:
            node = node.parent  # keep the `const`
    text: bytes = node.text or b""
    cut = len(text)
    if body is not None and node.type not in ("type_spec", "type_item"):
        cut = body.start_byte - node.start_byte
    elif b"\n" in text:
        cut = text.index(b"\n")
    return _squash(text[:cut].decode("utf-8", "replace"))


def _squash(text: str) -> str:
    flat = " ".join(text.split()).removesuffix("=>").rstrip(" {:=")
    if len(flat) > SIGNATURE_CAP:
        flat = flat[:SIGNATURE_CAP] + "…"
    return flat


# ------------------------------------------------------------------ ast fallback

_Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _python_ast(text: str) -> list[Symbol] | None:
    """The stdlib fallback for .py; None when the file does not parse (no partial trees)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return list(_ast_walk(tree.body, 0, text.splitlines()))


def _ast_walk(body: list[ast.stmt], depth: int, lines: list[str]) -> Iterator[Symbol]:
    for node in body:
        if not isinstance(node, _Def):
            continue
        first = node.lineno  # the `def`/`class` line itself (decorators sit above)
        end_of_header = node.body[0].lineno - 1 if node.body else first
        header = " ".join(lines[first - 1 : max(first, end_of_header)])
        yield Symbol(first, depth, _squash(header.split("#", 1)[0]))
        if isinstance(node, ast.ClassDef):
            yield from _ast_walk(node.body, depth + 1, lines)

"""A whole-file rewrite that sent back only the definitions it changed, put in place.

Asked for a file whole, a small model often replies with just the function it
fixed (or added). Written as it is, the file loses its other functions; refused
(tools/leftovers.py `dropped_definitions`), the change is lost. Read as a set of
definitions, it is the change: each replaces the one of the same name, a new one
is added at the end, a new import joins the file's imports, and everything the
reply does not mention stays as it was.

Only a reply made of nothing but top-level functions, classes and imports is
read this way, and only for a name the task did not ask to remove (the caller
decides that): anything else (top-level code, assignments, a reply that does
not parse) is left to the usual checks.
"""

from __future__ import annotations

import importlib
from typing import Any

from rift.tools.leftovers import parse


def _span(node: Any) -> tuple[int, int]:
    """The node's lines, decorators included (1-based, inclusive)."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    return first, node.end_lineno


def _source(lines: list[str], node: Any) -> str:
    first, last = _span(node)
    return "\n".join(lines[first - 1 : last])


def splice_definitions(before: str, reply: str) -> str | None:
    """`before` with the reply's definitions put in (see the module docstring); None when the
    reply is not only definitions and imports, or either text does not parse."""
    old_tree, new_tree = parse(before), parse(reply)
    if old_tree is None or new_tree is None or not new_tree.body:
        return None
    ast = importlib.import_module("ast")
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    imports = (ast.Import, ast.ImportFrom)
    if not all(isinstance(node, defs + imports) for node in new_tree.body):
        return None
    old_lines, new_lines = before.split("\n"), reply.split("\n")
    where = {node.name: node for node in old_tree.body if isinstance(node, defs)}
    known = {ast.unparse(node) for node in old_tree.body if isinstance(node, imports)}
    replaced: dict[int, tuple[int, str]] = {}
    added: list[str] = []
    new_imports: list[str] = []
    for node in new_tree.body:
        if isinstance(node, imports):
            if ast.unparse(node) not in known:
                new_imports.append(_source(new_lines, node))
        elif node.name in where:
            kept = where[node.name]
            first, last = _span(kept)
            text = _source(new_lines, node)
            if kept.decorator_list and not node.decorator_list:  # a reply drops them
                text = "\n".join([*old_lines[first - 1 : kept.lineno - 1], text])
            replaced[first] = (last, text)
        else:
            added.append(_source(new_lines, node))
    out: list[str] = []
    line = 1
    while line <= len(old_lines):
        if line in replaced:
            last, text = replaced[line]
            out.append(text)
            line = last + 1
        else:
            out.append(old_lines[line - 1])
            line += 1
    text = "\n".join(out)
    if added:
        text = text.rstrip("\n") + "\n\n\n" + "\n\n\n".join(added) + "\n"
    if new_imports:
        text = _with_imports(text, new_imports, old_tree, ast)
    return text


def _with_imports(text: str, new_imports: list[str], old_tree: Any, ast: Any) -> str:
    """`text` with `new_imports` after the file's last top-level import (else after its
    docstring, else at the top). The lines above that point are `before`'s own."""
    anchor = 0
    for node in old_tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            anchor = node.end_lineno
        elif anchor == 0 and isinstance(node, ast.Expr) and node is old_tree.body[0]:
            anchor = node.end_lineno  # the module docstring
        else:
            break
    lines = text.split("\n")
    return "\n".join([*lines[:anchor], *new_imports, *lines[anchor:]])

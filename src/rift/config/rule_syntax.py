"""The grammar of a permission rule: `Tool` or `Tool(pattern)`, parsed into a `Rule`.

Config reading checks every rule it merges with `parse_rule` (a malformed one is
one warning), and the permission engine (core/permissions/rules.py) matches the
parsed rules; the grammar sits here, with the settings that hold the rules, so
that reading a config never imports the engine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from msgspec import Struct

from rift.config.globs import glob_regex

TOOL_FAMILIES: dict[str, frozenset[str]] = {
    "edit": frozenset({"edit", "write"}),
    "read": frozenset({"read", "ls", "grep", "glob", "outline"}),
    "websearch": frozenset({"websearch", "web_search"}),
}
_TOOL_NAME = re.compile(r"[A-Za-z0-9_]+")


class Rule(Struct, frozen=True):
    """One parsed rule: `tool` lowercased, `pattern` None for a bare tool name."""

    text: str
    tool: str
    pattern: str | None

    def covers(self, tool: str) -> bool:
        """Whether this rule speaks about `tool` (Edit covers write, Read covers ls...)."""
        return tool.lower() in TOOL_FAMILIES.get(self.tool, frozenset({self.tool}))


def parse_rule(text: str) -> Rule | None:
    """`Tool` or `Tool(pattern)`, or None when malformed."""
    text = text.strip()
    open_at = text.find("(")
    if open_at < 0:
        return Rule(text, text.lower(), None) if _TOOL_NAME.fullmatch(text) else None
    name, inner = text[:open_at], text[open_at + 1 : -1]
    if not _TOOL_NAME.fullmatch(name) or not text.endswith(")") or not inner.strip():
        return None
    depth = 0
    for char in inner:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return None
    if depth:
        return None
    try:
        re.compile(glob_regex(inner, path=False))
    except re.error:
        return None
    return Rule(text, name.lower(), inner.strip())


def parse_rules(texts: Iterable[str]) -> tuple[list[Rule], list[str]]:
    """Parse many rules; malformed ones are skipped with one warning each."""
    rules: list[Rule] = []
    warnings: list[str] = []
    for text in texts:
        rule = parse_rule(text)
        if rule is None:
            warnings.append(f"ignoring malformed permission rule: {text}")
        else:
            rules.append(rule)
    return rules, warnings

"""rift.tools: the built-in tools, their registry order, and tool-name repair.

Each tool is one module exposing `TOOL`; `_MODULES` is the explicit registry (no
scanning), and a module is imported only when its tool is first asked for, so a
session offering a small model's six tools never loads the rest. `canonical_name`
repairs the names small models invent ("read_file", "str_replace", "Shell")
before a call is dispatched.
"""

from __future__ import annotations

import importlib
from collections.abc import Collection
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rift.tools.base import Tool

__all__ = [
    "ALIASES", "BUILTIN_TOOLS", "builtin_tools", "canonical_name", "registered_tools", "tool",
]  # fmt: skip

BUILTIN_TOOLS: tuple[str, ...] = (
    "read", "write", "edit", "bash", "ls", "grep", "glob", "outline", "repo_map",
    "plan", "remember", "fetch", "web_search", "ask_user",
)  # fmt: skip

_MODULES: dict[str, str] = {
    "read": "rift.tools.read",
    "write": "rift.tools.write",
    "edit": "rift.tools.edit",
    "bash": "rift.tools.bash",
    "ls": "rift.tools.ls",
    "grep": "rift.tools.grep",
    "glob": "rift.tools.glob",
    "outline": "rift.tools.outline",
    "repo_map": "rift.tools.repo_map",
    "plan": "rift.tools.plan",
    "remember": "rift.tools.remember",
    "fetch": "rift.tools.fetch",
    "web_search": "rift.tools.web_search",
    "ask_user": "rift.tools.ask_user",
    "task": "rift.tools.task",  # the core adds these three per session (runtime.py)
    "skill": "rift.tools.skill",
    "agent": "rift.tools.agent",
}


def builtin_tools(*, search: bool = False, only: Collection[str] | None = None) -> dict[str, Tool]:
    """The built-in tools by name, in registry order; `only` narrows them. `web_search`
    is offered only when a search URL is configured (`search`): a tool that can only
    fail wastes schema bytes and a model's turn."""
    names = [n for n in BUILTIN_TOOLS if search or n != "web_search"]
    return {name: tool(name) for name in names if only is None or name in only}


def registered_tools() -> dict[str, Tool]:
    """Every tool rift defines, by name: the built-ins and `task`, `skill` and `agent`."""
    return {name: tool(name) for name in _MODULES}


def tool(name: str) -> Tool:
    """The tool rift defines as `name`, its module imported on first use; KeyError
    for a name rift does not define."""
    found: Tool = importlib.import_module(_MODULES[name]).TOOL
    return found


_ALIAS_TABLE: dict[str, tuple[str, ...]] = {
    "read": ("read_file", "readfile", "open_file", "view_file", "cat", "view"),
    "write": ("write_file", "create_file", "save_file", "write_to_file"),
    "edit": ("edit_file", "str_replace", "replace_in_file", "apply_edit"),
    "bash": (
        "run_command", "execute", "execute_command", "shell",
        "run_shell_command", "terminal", "run_bash", "exec",
    ),
    "ls": ("list_files", "list_directory", "list_dir", "dir"),
    "grep": ("search", "search_files", "grep_search", "code_search", "search_code"),
    "glob": ("find_files", "file_glob", "file_search"),
    "outline": ("skeleton", "file_outline", "symbols", "get_outline"),
    "repo_map": ("repo_overview", "project_map", "codebase_map"),
    "web_search": ("internet_search", "google", "web", "duckduckgo", "search_web"),
    "fetch": ("web_fetch", "http_get", "get_url", "fetch_url", "curl", "wget"),
    "task": ("tasks", "bg", "task_status", "check_task", "background_task", "task_output"),
    "agent": ("Task", "subagent", "sub_agent", "spawn_agent", "delegate", "dispatch_agent"),
}  # fmt: skip

ALIASES: dict[str, str] = {
    alias: target for target, aliases in _ALIAS_TABLE.items() for alias in aliases
}
"""Hallucinated tool name → real tool name (what small models reach for from other agents)."""


def _normalize(name: str) -> str:
    name = name.strip()
    if name.startswith("functions."):
        name = name[len("functions.") :]
    return name.lower().replace("-", "_").replace(" ", "_")


def canonical_name(name: str, available: Collection[str]) -> str:
    """The registered tool a model meant by `name`, or `name` unchanged.

    Order: exact name; exact alias ("Task" → agent); case/spacing-insensitive
    name; case-insensitive alias. An alias only applies when its target is
    available, so "Task" still reaches `task` in a context without `agent`.
    """
    if name in available:
        return name
    target = ALIASES.get(name.strip())
    if target is not None and target in available:
        return target
    wanted = _normalize(name)
    for candidate in available:
        if _normalize(candidate) == wanted:
            return candidate
    for alias, target in ALIASES.items():
        if _normalize(alias) == wanted and target in available:
            return target
    return name

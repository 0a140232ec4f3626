"""Every tool declares how a call of it reads on a screen; faces keep no tables.

A tool's module says its kind (ACP's vocabulary), whether a call asks for
approval, and how to summarise a call from its arguments (tools/base.py `Tool`).
`describe_call` reads those for every face (printer, TUI, ACP, trace, swarm), so
a new tool touches only its own module and the registry (tools/__init__.py).
"""

from __future__ import annotations

from typing import Any, get_args

import pytest

from rift.core import describe_call
from rift.tools import BUILTIN_TOOLS, builtin_tools, registered_tools
from rift.tools.base import Tool, ToolKind

TOOLS = registered_tools()

SALIENT = {
    "read": "src/a.py",
    "write": "src/a.py",
    "edit": "src/a.py",
    "bash": "pytest -q",
    "ls": "src",
    "grep": "TODO",
    "glob": "**/*.py",
    "outline": "src/a.py",
    "repo_map": "src",
    "plan": "2 steps",
    "remember": "tests run with pytest -q",
    "fetch": "https://example.com/a",
    "web_search": "rift agent",
    "ask_user": "Which file?",
    "task": "#3 kill",
    "skill": "review",
    "agent": "1 sub-agent(s)",
}
"""A typical call of each tool, as its arguments' own salient part (see `_call`)."""


def _call(tool: str) -> dict[str, Any]:
    """Typical arguments for a call of `tool`."""
    return {
        "read": {"path": "src/a.py", "offset": 10},
        "write": {"path": "src/a.py", "content": "x = 1\n"},
        "edit": {"path": "src/a.py", "old_string": "1", "new_string": "2"},
        "bash": {"command": "pytest -q", "timeout_secs": 60},
        "ls": {"path": "src"},
        "grep": {"pattern": "TODO", "path": "src"},
        "glob": {"pattern": "**/*.py"},
        "outline": {"path": "src/a.py"},
        "repo_map": {"path": "src", "max_files": 5},
        "plan": {"set": ["look", "fix"]},
        "remember": {"fact": "tests run with pytest -q"},
        "fetch": {"url": "https://example.com/a"},
        "web_search": {"query": "rift agent"},
        "ask_user": {"question": "Which file?", "choices": ["a", "b"]},
        "task": {"id": 3, "kill": True},
        "skill": {"name": "review"},
        "agent": {"tasks": [{"prompt": "look"}]},
    }[tool]


def test_the_registry_holds_every_tool_rift_defines() -> None:
    assert set(BUILTIN_TOOLS) <= set(TOOLS)
    assert set(builtin_tools(search=True)) | {"task", "skill", "agent"} == set(TOOLS)
    assert set(SALIENT) == set(TOOLS), "a new tool: add a typical call of it here"


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_each_tool_declares_kind_asks_and_summary(name: str) -> None:
    tool: Tool = TOOLS[name]
    assert tool.kind in get_args(ToolKind)
    assert isinstance(tool.asks, bool)
    assert not tool.asks or tool.mutating, "a call that waits for approval changes something"
    described = describe_call(name, _call(name))
    assert (described.kind, described.asks) == (tool.kind, tool.asks)
    assert described.summary == SALIENT[name]
    assert described.title and "\n" not in described.title
    for odd in ({}, {"path": 3, "command": None, "tasks": "x"}, {"raw": "not json"}):
        odd_summary = describe_call(name, odd).summary  # never raises, whatever the model sent
        assert isinstance(odd_summary, str) and "\n" not in odd_summary


def test_kinds_and_asks_of_the_everyday_tools() -> None:
    kinds = {name: describe_call(name, {}).kind for name in TOOLS}
    assert {kinds[n] for n in ("read", "ls", "outline", "repo_map")} == {"read"}
    assert (kinds["write"], kinds["edit"], kinds["bash"]) == ("edit", "edit", "execute")
    assert (kinds["grep"], kinds["glob"], kinds["fetch"], kinds["plan"]) == (
        "search",
        "search",
        "fetch",
        "think",
    )
    assert {n for n in TOOLS if describe_call(n, {}).asks} == {"write", "edit", "bash"}


def test_titles_say_what_a_call_does() -> None:
    assert describe_call("read", {"path": "a.txt", "offset": 5}).title == "Read a.txt (from line 5)"
    assert describe_call("edit", {"path": "a.txt"}).title == "Edit a.txt"
    assert describe_call("grep", {"pattern": "TODO", "path": "src"}).title == (
        "Search for 'TODO' in src"
    )
    assert describe_call("ls", {}).title == "List ."
    assert describe_call("plan", {"done": 2}).title == "Update the plan"
    assert describe_call("bash", {"command": "  make\ntest  "}).title == "make ⏎ test"


def test_an_unknown_tool_gets_the_defaults() -> None:
    """An MCP or plugin tool: kind other, no ask of its own, its first string argument."""
    described = describe_call("srv_echo", {"count": 2, "text": " ping\npong "})
    assert (described.kind, described.asks) == ("other", False)
    assert described.summary == "ping ⏎ pong"
    assert described.title == "srv_echo"
    assert describe_call("srv_echo", {"count": 2}).summary == '{"count": 2}'
    assert describe_call("srv_echo", {}).summary == ""

"""plan, post-edit hooks, and the registry with its tool-name repair."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from tooldoubles import call

from rift.errors import ToolError
from rift.events import PlanItem
from rift.tools import ALIASES, BUILTIN_TOOLS, builtin_tools, canonical_name
from rift.tools.base import ToolContext
from rift.tools.edit import TOOL as EDIT
from rift.tools.hooks import run_post_edit_hooks
from rift.tools.plan import TOOL as PLAN
from rift.tools.write import TOOL as WRITE

# -------------------------------------------------------------------- plan


def test_plan_set_then_done(ctx: ToolContext) -> None:
    out = call(PLAN, ctx, set=["read the code", "fix the bug", "run tests"])
    assert out.text == "Current plan:\n[ ] 1. read the code\n[ ] 2. fix the bug\n[ ] 3. run tests"
    out = call(PLAN, ctx, done="2")
    assert out.text.splitlines()[2] == "[x] 2. fix the bug"
    assert out.plan == [
        PlanItem("read the code", False),
        PlanItem("fix the bug", True),
        PlanItem("run tests", False),
    ]
    assert ctx.plan.items == out.plan


def test_plan_set_replaces_and_accepts_json_string(ctx: ToolContext) -> None:
    call(PLAN, ctx, set=["a"], done=1)
    out = call(PLAN, ctx, set=json.dumps(["x", "y"]))
    assert out.plan == [PlanItem("x", False), PlanItem("y", False)]


def test_plan_errors_and_empty(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="set"):
        call(PLAN, ctx)
    with pytest.raises(ToolError, match="no step 1"):
        call(PLAN, ctx, done=1)
    out = call(PLAN, ctx, set=[])
    assert out.text == "(plan is empty)" and out.plan == []


# ------------------------------------------------------------------- hooks


def test_hooks_pass_silently(ctx: ToolContext) -> None:
    ctx.post_edit_hooks = ("true", "test -f f.txt")
    out = call(WRITE, ctx, path="f.txt", content="x")
    assert out.text == "Wrote 1 bytes to f.txt"


def test_hook_failure_appended_to_edit(proj: Path, ctx: ToolContext) -> None:
    (proj / "f.txt").write_text("good\n")
    ctx.post_edit_hooks = ("true", "printf '\\033[31mlint\\033[0m: bad\\n'; echo oops >&2; exit 4")
    out = call(EDIT, ctx, path="f.txt", old_string="good", new_string="bad")
    assert out.ok
    assert out.text == (
        "Edited f.txt (1 replacement)\n"
        "[post-edit hook FAILED (exit 4): printf '\\033[31mlint\\033[0m: bad\\n';"
        " echo oops >&2; exit 4]\n"
        "lint: bad\noops\n"
        "The edit is applied, but the checks now fail."
    )
    assert (proj / "f.txt").read_text() == "bad\n"


def test_hook_timeout_variant(ctx: ToolContext) -> None:
    ctx.post_edit_hooks = ("echo started; sleep 30",)
    text = asyncio.run(run_post_edit_hooks(ctx, timeout=0.5))
    header = "\n[post-edit hook TIMED OUT after 0.5s: echo started; sleep 30]\n"
    assert text.startswith(header + "started")
    assert text.endswith("The edit is applied, but the checks now fail.")


def test_hook_output_middle_truncated(ctx: ToolContext) -> None:
    ctx.post_edit_hooks = ("head -c 20000 /dev/zero | tr '\\0' e; exit 1",)
    text = asyncio.run(run_post_edit_hooks(ctx))
    assert "[output truncated: 4000 of 20000 bytes shown]" in text


# ---------------------------------------------------------------- registry


def test_builtin_registry_order_and_size() -> None:
    tools = builtin_tools(search=True)
    assert tuple(tools) == BUILTIN_TOOLS == (
        "read", "write", "edit", "bash", "ls", "grep", "glob", "outline", "repo_map",
        "plan", "remember", "fetch", "web_search", "ask_user",
    )  # fmt: skip
    assert {name for name, tool in tools.items() if tool.mutating} == {"write", "edit", "bash"}
    for name, tool in tools.items():
        assert tool.name == name
        assert tool.parameters["type"] == "object"
    size = sum(len(json.dumps(tool.schema())) for tool in tools.values())
    assert size < 6144  # the budget for the whole tool set (task/agent/skill included)


def test_web_search_is_absent_without_a_search_url() -> None:
    assert "web_search" not in builtin_tools()
    assert "web_search" in builtin_tools(search=True)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("read", "read"),
        ("read_file", "read"),
        ("str_replace", "edit"),
        ("Shell", "bash"),
        ("  LIST_FILES ", "ls"),
        ("run-command", "bash"),
        ("functions.grep", "grep"),
        ("Read", "read"),
        ("find_files", "glob"),
        ("web_fetch", "fetch"),
        ("file_outline", "outline"),
        ("codebase_map", "repo_map"),
        ("search_web", "web_search"),
        ("dispatch_agent", "dispatch_agent"),  # agent is not available here
        ("mystery", "mystery"),
    ],
)
def test_canonical_name(name: str, expected: str) -> None:
    assert canonical_name(name, BUILTIN_TOOLS) == expected


def test_task_alias_prefers_agent_only_when_available() -> None:
    assert canonical_name("Task", [*BUILTIN_TOOLS, "task", "agent"]) == "agent"
    assert canonical_name("Task", [*BUILTIN_TOOLS, "task"]) == "task"
    assert canonical_name("tasks", [*BUILTIN_TOOLS, "task"]) == "task"
    assert ALIASES["delegate"] == "agent" and ALIASES["wget"] == "fetch"

"""A built-in tool's arguments are one typed struct, and its schema is made from it.

The model's JSON object is checked into the struct before the tool runs: a bad
argument is a `ToolError` naming the parameter (the model reads it), with the
leniency small models need ("10" for 10, "true" for true, a list sent as one
string); the schema sent to the model is generated, so it cannot drift from what
the check accepts.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any, ClassVar

import pytest
from msgspec import Meta

from rift.errors import ToolError
from rift.tools import registered_tools
from rift.tools.arguments import Args, from_args, parse, schema, takes
from rift.tools.base import ToolContext, ToolOutput, titled
from rift.tools.bash import BashArgs
from rift.tools.read import ReadArgs

UNTYPED = {"agent"}
"""Tools that still read a dict: agent's tasks are parsed by tools/delegation.py."""


class Sample(Args, frozen=True, kw_only=True):
    name: str
    count: Annotated[int | None, Meta(description="how many")] = None
    path: str = "."
    force: bool = False
    note: str | None = None
    items: list[str] | None = None
    aliases: ClassVar[dict[str, str]] = {"label": "name"}


def test_the_schema_is_generated_from_the_fields() -> None:
    assert schema(Sample) == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "count": {"type": "integer", "description": "how many"},
            "path": {"type": "string"},
            "force": {"type": "boolean"},
            "note": {"type": "string"},
            "items": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["name"],
    }


def test_every_builtin_tool_declares_its_schema_through_its_struct() -> None:
    for name, tool in registered_tools().items():
        if name in UNTYPED or tool.run.__module__ != "rift.tools.arguments":
            assert name in UNTYPED, f"{name} reads a dict: give it an Args struct"
            continue
        assert tool.parameters["type"] == "object", name


def test_a_checked_value_with_defaults() -> None:
    got = parse(Sample, {"name": "a"})
    assert got == Sample(name="a", count=None, path=".", force=False, note=None, items=None)


def test_small_model_leniency_is_kept() -> None:
    got = parse(
        Sample, {"name": "a", "count": "10", "force": "true", "path": "", "items": "x\ny\n"}
    )
    assert (got.count, got.force, got.path, got.items) == (10, True, ".", ["x", "y"])
    assert parse(Sample, {"name": "a", "items": '["p", "q"]'}).items == ["p", "q"]
    assert parse(Sample, {"name": "a", "count": 3.0}).count == 3


def test_a_str_or_none_field_keeps_the_empty_string() -> None:
    assert parse(Sample, {"name": "a", "note": ""}).note == ""


def test_an_alias_is_read_when_the_parameter_is_absent() -> None:
    assert parse(Sample, {"label": "b"}).name == "b"
    assert parse(Sample, {"label": "b", "name": "c"}).name == "c"


def test_unknown_keys_are_ignored() -> None:
    assert parse(Sample, {"name": "a", "extra": 1}).name == "a"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "missing required string parameter 'name'"),
        ({"name": 5}, "missing required string parameter 'name'"),
        ({"name": "a", "count": "ten"}, "parameter 'count' must be an integer"),
        ({"name": "a", "count": True}, "parameter 'count' must be an integer"),
        ({"name": "a", "force": "maybe"}, "parameter 'force' must be a boolean"),
        ({"name": "a", "path": 3}, "parameter 'path' must be a string"),
        ({"name": "a", "note": 3}, "parameter 'note' must be a string"),
        ({"name": "a", "items": 3}, "parameter 'items' must be a list of strings"),
    ],
)
def test_a_bad_argument_is_a_tool_error_naming_it(args: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolError, match=message):
        parse(Sample, args)


def test_an_unsupported_field_type_fails_at_declaration_time() -> None:
    class Bad(Args, frozen=True, kw_only=True):
        when: float

    with pytest.raises(TypeError, match="when"):
        schema(Bad)


def test_takes_hands_the_tool_the_struct(ctx: ToolContext) -> None:
    seen: list[ReadArgs] = []

    async def run(args: ReadArgs, _ctx: ToolContext) -> ToolOutput:
        seen.append(args)
        return ToolOutput(ok=True, text="")

    asyncio.run(takes(ReadArgs, run)({"path": "a.py", "offset": "5"}, ctx))
    assert seen == [ReadArgs(path="a.py", offset=5, limit=None)]


def test_a_tool_reports_a_bad_argument_before_it_acts(ctx: ToolContext, proj: Path) -> None:
    tool = registered_tools()["bash"]
    with pytest.raises(ToolError, match="parameter 'timeout_secs' must be an integer"):
        asyncio.run(tool.run({"command": "touch x", "timeout_secs": "soon"}, ctx))
    assert not (proj / "x").exists()
    assert parse(BashArgs, {"command": "ls"}).timeout_secs is None


async def _sample_run(args: Sample, ctx: ToolContext) -> ToolOutput:
    return ToolOutput(True, args.name)


def test_from_args_reads_the_struct_off_the_run_and_names_the_tool_by_its_module(
    ctx: ToolContext,
) -> None:
    tool = from_args(
        _sample_run, description="d", kind="other", title=titled("Do {}", "name", "Do")
    )
    assert tool.name == "test_tool_arguments"  # this module's name, as for rift.tools.read
    assert tool.parameters == schema(Sample)
    assert tool.summary({"name": " x "}) == "x"  # the first field, unless summary= says
    assert tool.title is not None and (tool.title({"name": "x"}), tool.title({})) == ("Do x", "Do")
    assert asyncio.run(tool.run({"label": "y"}, ctx)).text == "y"

    async def untyped(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput(True, "")

    with pytest.raises(TypeError, match="no Args"):
        from_args(untyped, description="d", kind="other")  # type: ignore[arg-type]

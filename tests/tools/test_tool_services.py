"""`ToolContext.services`: one typed record of what the session lends its tools.

The by-name view (`ctx.extras`) stays for the core's callers that still set
services by their old names; it must map each name onto the typed field, read an
unset service as missing (tools test `is None`), and refuse a name it does not
know instead of storing it where no tool will look.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tooldoubles import RecordingGate, RecordingJournal

from rift.tools.base import ToolContext
from rift.tools.services import ToolServices


def _ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, gate=RecordingGate(), journal=RecordingJournal())


def test_old_names_set_the_typed_fields(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    ctx.extras.update(grep_backend="python", small_model=True)
    ctx.extras["config"] = None
    assert ctx.services.grep_backend == "python" and ctx.services.small_model is True
    assert ctx.services.settings is None


def test_unset_services_read_as_missing(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    assert ctx.extras.get("lsp") is None and "tasks" not in ctx.extras
    assert dict(ctx.extras) == {}
    with pytest.raises(KeyError):
        ctx.extras["broker"]
    ctx.services.grep_backend = "rg"
    assert dict(ctx.extras) == {"grep_backend": "rg"}
    del ctx.extras["grep_backend"]
    assert ctx.services.grep_backend is None


def test_an_unknown_name_is_refused(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    with pytest.raises(KeyError, match="unknown tool service 'brokr'"):
        ctx.extras["brokr"] = object()


def test_a_sub_agent_gets_everything_but_delegation() -> None:
    class Runner:
        async def run(self, tasks: list[object], background: bool) -> str:
            return ""

    services = ToolServices(subagents=Runner(), grep_backend="rg")  # type: ignore[arg-type]
    child = services.without_subagents()
    assert child.subagents is None and child.grep_backend == "rg"
    assert services.subagents is not None  # the parent keeps its own

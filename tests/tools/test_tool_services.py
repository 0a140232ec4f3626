"""`ToolContext.services`: one typed record of what the session lends its tools.

Every service is a typed field (there is no by-name bag to mistype a name in);
an unset one is None, and a sub-agent gets the same services but delegation.
"""

from __future__ import annotations

from pathlib import Path

from tooldoubles import RecordingGate, RecordingJournal

from rift.tools.base import ToolContext
from rift.tools.services import ToolServices


def test_no_service_is_lent_by_default(tmp_path: Path) -> None:
    """Tools test `is None`: a context nobody lent anything to has nothing to find."""
    ctx = ToolContext(cwd=tmp_path, gate=RecordingGate(), journal=RecordingJournal())
    services = ctx.services
    assert (services.tasks, services.subagents, services.asker) == (None, None, None)
    assert (services.diagnostics, services.files, services.terminal) == (None, None, None)
    assert not hasattr(ctx, "extras")  # no by-name bag beside the typed record


def test_a_sub_agent_gets_everything_but_delegation() -> None:
    class Runner:
        async def run(self, tasks: list[object], background: bool) -> str:
            return ""

    services = ToolServices(subagents=Runner(), grep_backend="rg")  # type: ignore[arg-type]
    child = services.without_subagents()
    assert child.subagents is None and child.grep_backend == "rg"
    assert services.subagents is not None  # the parent keeps its own

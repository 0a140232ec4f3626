"""A swarm race as ACP `session/update`s: a plan, and a tool call per candidate.

The verdict closes each call with the candidate's outcome and its changes as diffs;
a race that ends without one (cancelled) fails the calls still open."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from acp import (
    plan_entry,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_plan,
    update_tool_call,
)
from acp.schema import PlanEntryStatus, ToolCallLocation
from msgspec import Struct, field

from rift.events import (
    Event,
    SubagentActivity,
    SubagentFinished,
    SubagentStarted,
    SwarmCandidate,
    SwarmResult,
    SwarmStarted,
)

Changes = Callable[[str], list[tuple[Path, str | None, str | None]]]
"""A candidate's name → (path, text before, text after) per file its patch changes."""
SHOWN_LINES = 40
"""The newest activity lines a running candidate's call shows."""
SWARM_EVENTS = (SwarmStarted, SubagentStarted, SubagentActivity, SubagentFinished, SwarmResult)


class _Candidate(Struct, dict=True):
    name: str
    call_id: str
    status: PlanEntryStatus = "pending"
    model: str = ""
    lines: list[str] = field(default_factory=list)
    open: bool = False
    """Its tool call was started and not yet closed."""


class SwarmUpdates(Struct, dict=True):
    """One session's swarm races; see the module docstring."""

    changes: Changes | None = None
    """None: calls carry the outcome only (a session that cannot read the patches)."""
    _race: int = 0
    _task: str = ""
    _candidates: dict[str, _Candidate] = field(default_factory=dict)

    def feed(self, event: Event) -> list[Any]:
        if isinstance(event, SwarmStarted):
            return self._begin(event)
        if isinstance(event, SwarmResult):
            return self._judged(event)
        tag = getattr(event, "tag", "")
        candidate = self._candidates.get(tag)
        if candidate is None:
            return []
        if isinstance(event, SubagentStarted):
            return self._started(candidate, event)
        if isinstance(event, SubagentActivity):
            candidate.lines.append(event.text)
            if not candidate.open:
                return []
            shown = "\n".join(candidate.lines[-SHOWN_LINES:])
            return [update_tool_call(candidate.call_id, content=[tool_content(text_block(shown))])]
        if isinstance(event, SubagentFinished):
            candidate.status = "completed"
            return [self._plan()]
        return []

    def finish(self) -> list[Any]:
        """The race's work ended: calls still open (no verdict came) failed."""
        out: list[Any] = []
        for candidate in self._candidates.values():
            if candidate.open:
                candidate.open = False
                out.append(update_tool_call(candidate.call_id, status="failed"))
        self._candidates = {}
        return out

    def _begin(self, event: SwarmStarted) -> list[Any]:
        out = self.finish()  # a race left open (never judged) is over now
        self._race += 1
        self._task = event.task
        self._candidates = {
            name: _Candidate(name, f"swarm_{self._race}_{i}")
            for i, name in enumerate(event.candidates)
        }
        return [*out, self._plan()]

    def _started(self, candidate: _Candidate, event: SubagentStarted) -> list[Any]:
        candidate.status = "in_progress"
        candidate.model = event.model
        candidate.open = True
        start = start_tool_call(
            candidate.call_id,
            f"Candidate {candidate.name}",
            kind="other",
            status="in_progress",
            raw_input={"task": self._task, "model": event.model, "label": event.label},
        )
        return [self._plan(), start]

    def _judged(self, event: SwarmResult) -> list[Any]:
        out: list[Any] = []
        for row in event.candidates:
            candidate = self._candidates.get(row.name)
            if candidate is None:
                continue
            candidate.status = "completed"
            won = row.name == event.winner
            title = f"Candidate {row.name}" + (" (winner)" if won else "")
            summary = _summary(row, won, event.judged_by)
            content: list[Any] = [tool_content(text_block(summary))]
            locations: list[ToolCallLocation] = []
            for path, old, new in self.changes(row.name) if self.changes is not None else []:
                content.append(tool_diff_content(str(path), new or "", old))
                locations.append(ToolCallLocation(path=str(path)))
            if not candidate.open:  # it never started (no slot): its call opens now
                out.append(start_tool_call(candidate.call_id, title, kind="other"))
            candidate.open = False
            out.append(
                update_tool_call(
                    candidate.call_id,
                    title=title,
                    status="failed" if row.outcome == "error" else "completed",
                    content=content,
                    locations=locations or None,
                    raw_output=summary,
                )
            )
        self._candidates = {}
        plan = (plan_entry(f"Candidate {r.name}", status="completed") for r in event.candidates)
        return [update_plan(plan), *out]

    def _plan(self) -> Any:
        return update_plan(
            plan_entry(f"Candidate {c.name}", status=c.status) for c in self._candidates.values()
        )


def _summary(row: SwarmCandidate, won: bool, judged_by: str) -> str:
    facts = [row.outcome]
    if row.tests:
        facts.append(f"tests {row.tests}")
    facts.append(f"patch {row.patch_bytes} bytes" if row.patch_bytes else "no changes")
    facts.append(f"{row.seconds:.1f}s")
    text = f"{row.name} ({row.model}): " + ", ".join(facts)
    if won:
        text += f". The winner (judged by {judged_by}): /merge {row.name} applies it."
    return text

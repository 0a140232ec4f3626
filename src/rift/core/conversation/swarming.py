"""Swarm races from a conversation: `/swarm`, `/merge`, `/worktrees` (src/rift/swarm/).

`Conversation` inherits these. A race is the conversation's work like a turn: started
through the owner's `_start`, so busy is set before any await and cleared only when
the race's own task ends, and `cancel` stops it (its worktrees are removed).
"""

from __future__ import annotations

from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rift.events import Info, Warning

if TYPE_CHECKING:
    from rift.core.conversation.runtime import Agent
    from rift.swarm.candidates import StartCandidate
    from rift.swarm.race import RaceOptions


class Swarming:
    """The swarm commands; mixed into `Conversation` (owner.py)."""

    _agent: Agent
    _start_candidate: StartCandidate
    """Brings up each candidate of a race (handed to the owner by startup.py)."""

    if TYPE_CHECKING:

        @property
        def model(self) -> str: ...
        def _refused_busy(self, text: str = ...) -> bool: ...
        def _start(self, body: Coroutine[Any, Any, object], kind: str = "turn") -> None: ...

    def swarm(
        self,
        task: str,
        *,
        models: str = "",
        attempts: int = 1,
        explore: bool = False,
        judge: str = "",
        test_cmd: str | None = None,
    ) -> bool:
        """Start a swarm race (src/rift/swarm/) as this conversation's work: busy while it
        runs, cancelled by `cancel`, its verdict a `swarm_result` event. `models` and
        `judge` are comma-separated; no models named: the conversation's own."""
        from rift.swarm.work import options_for  # the swarm package: loaded on first use

        if not task.strip():
            self._agent.emit(Warning("swarm needs a task"))
            return False
        options = options_for(
            task,
            models=models,
            attempts=attempts,
            explore=explore,
            judge=judge,
            test_cmd=test_cmd,
            default_model=self.model,
        )
        return self._begin_swarm(options)

    def swarm_line(self, text: str) -> bool:
        """`/swarm <task> [--models a,b] [--attempts N] [--explore] [--judge …]` as typed."""
        from rift.swarm.gitrepo import SwarmError
        from rift.swarm.work import parse_swarm

        try:
            options = parse_swarm(text, self.model)
        except SwarmError as exc:
            self._agent.emit(Warning(str(exc)))
            return False
        return self._begin_swarm(options)

    def worktrees(self) -> str:
        """What `/worktrees` shows: the last race's checkouts and patches."""
        from rift.swarm.work import describe_worktrees

        return describe_worktrees(self._agent.config.cwd)

    def show_worktrees(self, _argument: str = "") -> bool:
        """`/worktrees` as an everyday command (serve, ACP): `worktrees()` as info."""
        self._agent.emit(Info(self.worktrees()))
        return True

    def swarm_patch(self, name: str) -> str:
        """Candidate `name`'s patch from the last race ("" when it left none), for a face
        to show beside the candidate's activity."""
        from rift.swarm.patchview import patch_text

        return patch_text(self._agent.config.cwd, name)

    def swarm_changes(self, name: str) -> list[tuple[Path, str | None, str | None]]:
        """Each text file candidate `name`'s patch changes, as (where it is in the person's
        tree, text before, text after); None before: created, None after: deleted. For an
        editor's diff view."""
        from rift.swarm.patchview import file_changes

        return [(c.path, c.old, c.new) for c in file_changes(self._agent.config.cwd, name)]

    def _begin_swarm(self, options: RaceOptions) -> bool:
        if self._refused_busy():
            return False
        self._start(self._swarm(options), "swarm")
        return True

    def merge(self, name: str, cleanup: bool = False) -> bool:
        """Apply swarm candidate `name`'s patch, recorded in this conversation's undo
        journal (so `undo` takes it back); `cleanup` then removes the race's worktrees."""
        if self._refused_busy():
            return False
        from rift.swarm.work import merge_into  # the swarm package: loaded on first use

        agent = self._agent
        return merge_into(agent.config.cwd, name, cleanup, agent.journal, agent.emit)

    def merge_line(self, text: str) -> bool:
        """`/merge <name> [--cleanup]` (or `/merge --cleanup`) as typed."""
        words = text.split()
        cleanup = "--cleanup" in words
        names = [w for w in words if w != "--cleanup"]
        if len(names) > 1 or not (names or cleanup) or any(w.startswith("--") for w in names):
            usage = "usage: /merge <name> [--cleanup] (/worktrees lists the candidates)"
            self._agent.emit(Warning(usage, code="bad_command"))
            return False
        return self.merge(names[0] if names else "", cleanup)

    async def _swarm(self, options: RaceOptions) -> None:
        from rift.swarm.work import run_race

        await run_race(self._agent.config, options, self._agent.emit, self._start_candidate)

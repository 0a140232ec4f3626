"""Swarm races from a conversation: /swarm, /merge, /worktrees (src/rift/swarm/). A race is
the conversation's work like a turn: started through `Owner.work` under the busy rule, and
`cancel` stops it (its worktrees are removed).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rift.core.commands.base import Owner
from rift.events import Info, Warning

if TYPE_CHECKING:
    from rift.swarm.race import RaceOptions


def swarm(
    owner: Owner,
    task: str,
    *,
    models: str = "",
    attempts: int = 1,
    explore: bool = False,
    judge: str = "",
    test_cmd: str | None = None,
) -> bool:
    """Start a swarm race as this conversation's work, its verdict a `swarm_result` event;
    `models` and `judge` are comma-separated (no models: the conversation's own)."""
    from rift.swarm.work import options_for  # the swarm package: loaded on first use

    if not task.strip():
        owner.agent.emit(Warning("swarm needs a task"))
        return False
    options = options_for(
        task,
        models=models,
        attempts=attempts,
        explore=explore,
        judge=judge,
        test_cmd=test_cmd,
        default_model=owner.agent.model,
    )
    return owner.work(_race(owner, options), "swarm")


def swarm_line(owner: Owner, text: str) -> bool:
    """`/swarm <task> [--models a,b] [--attempts N] [--explore] [--judge …]` as typed."""
    from rift.swarm.gitrepo import SwarmError
    from rift.swarm.work import parse_swarm

    try:
        options = parse_swarm(text, owner.agent.model)
    except SwarmError as exc:
        owner.agent.emit(Warning(str(exc)))
        return False
    return owner.work(_race(owner, options), "swarm")


async def _race(owner: Owner, options: RaceOptions) -> None:
    from rift.core.conversation.startup import start_candidate  # each candidate's start
    from rift.swarm.work import run_race

    agent = owner.agent
    await run_race(agent.config, options, agent.emit, start_candidate)


def merge(owner: Owner, name: str, cleanup: bool = False) -> bool:
    """Apply swarm candidate `name`'s patch, recorded in this conversation's undo
    journal (so `undo` takes it back); `cleanup` then removes the race's worktrees."""
    from rift.swarm.work import merge_into  # the swarm package: loaded on first use

    agent = owner.agent
    return owner.work(
        lambda: merge_into(agent.config.cwd, name, cleanup, agent.journal, agent.emit), "merge"
    )


def merge_line(owner: Owner, text: str) -> bool:
    """`/merge <name> [--cleanup]` (or `/merge --cleanup`) as typed."""
    words = text.split()
    cleanup = "--cleanup" in words
    names = [w for w in words if w != "--cleanup"]
    if len(names) > 1 or not (names or cleanup) or any(w.startswith("--") for w in names):
        usage = "usage: /merge <name> [--cleanup] (/worktrees lists the candidates)"
        owner.agent.emit(Warning(usage, code="bad_command"))
        return False
    return merge(owner, names[0] if names else "", cleanup)


def worktrees(owner: Owner) -> str:
    """What `/worktrees` shows: the last race's checkouts and patches."""
    from rift.swarm.work import describe_worktrees

    return describe_worktrees(owner.agent.config.cwd)


def show_worktrees(owner: Owner, _argument: str = "") -> bool:
    owner.agent.emit(Info(worktrees(owner)))
    return True


def swarm_patch(owner: Owner, name: str) -> str:
    """Candidate `name`'s patch from the last race ("" when it left none)."""
    from rift.swarm.patchview import patch_text

    return patch_text(owner.agent.config.cwd, name)


def swarm_changes(owner: Owner, name: str) -> list[tuple[Path, str | None, str | None]]:
    """Each text file candidate `name`'s patch changes, as (where it is in the person's
    tree, text before, text after); None before: created, None after: deleted."""
    from rift.swarm.patchview import file_changes

    return [(c.path, c.old, c.new) for c in file_changes(owner.agent.config.cwd, name)]

"""A race or a merge as a conversation's piece of work (serve's `swarm`/`merge`, the
TUI's `/swarm`, `/merge`, `/worktrees`).

The conversation owner marks itself busy and runs `run_race` as its work, so a race obeys
the rules of a turn: one at a time, refused while busy, cancelled by `cancel`, awaited by
`close`. A merge is recorded in the conversation's own undo journal, so `/undo` takes it
back.
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Callable
from pathlib import Path

from rift.config.load import Config
from rift.errors import RiftError
from rift.events import Event, Info, SwarmCandidate, SwarmResult, Warning
from rift.fs.checkpoints import UndoJournal
from rift.swarm import merge as merging
from rift.swarm import worktrees
from rift.swarm.candidates import StartCandidate
from rift.swarm.gitrepo import SwarmError, repo_root
from rift.swarm.race import RaceOptions, RaceOutcome, judges_named, race
from rift.swarm.report import judge_line, table

USAGE = "usage: /swarm <task> [--models a,b] [--attempts N] [--explore] [--judge tests|MODEL|none]"


def parse_swarm(text: str, default_model: str) -> RaceOptions:
    """`/swarm` arguments: flags anywhere, every other word is the task. SwarmError for
    an unknown flag, a flag without its value, or no task."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise SwarmError(f"{exc}; {USAGE}") from None
    task: list[str] = []
    values: dict[str, str] = {}
    explore = False
    rest = iter(words)
    for word in rest:
        if word == "--explore":
            explore = True
        elif word in ("--models", "--attempts", "--judge", "--test-cmd"):
            value = next(rest, None)
            if value is None:
                raise SwarmError(f"{word} needs a value; {USAGE}")
            values[word] = value
        elif word.startswith("--"):
            raise SwarmError(f"unknown option {word}; {USAGE}")
        else:
            task.append(word)
    if not task:
        raise SwarmError(USAGE)
    attempts = values.get("--attempts", "1")
    if not attempts.isdigit() or int(attempts) < 1:
        raise SwarmError("--attempts needs a whole number of 1 or more")
    return options_for(
        " ".join(task),
        models=values.get("--models", ""),
        attempts=int(attempts),
        explore=explore,
        judge=values.get("--judge", ""),
        test_cmd=values.get("--test-cmd"),
        default_model=default_model,
    )


def options_for(
    task: str,
    *,
    models: str,
    attempts: int,
    explore: bool,
    judge: str,
    test_cmd: str | None,
    default_model: str,
) -> RaceOptions:
    """RaceOptions from the words a person or a client gave."""
    chosen = tuple(m.strip() for m in models.split(",") if m.strip()) or (default_model,)
    return RaceOptions(task, chosen, attempts, explore, judges_named([judge]), test_cmd)


async def run_race(
    config: Config, options: RaceOptions, emit: Callable[[Event], None], start: StartCandidate
) -> None:
    """The race, its verdict as `swarm_result` (and an info with the table); a race that
    cannot start is one warning; a cancel is a warning once the cleanup is done. `start`
    brings up each candidate (the owner's, from the core)."""
    try:
        outcome = await race(config, options, emit, start)
    except SwarmError as exc:
        emit(Warning(f"swarm: {exc}"))
        return
    except asyncio.CancelledError:
        emit(Warning("swarm cancelled: every candidate stopped, its worktree removed"))
        raise
    emit(Info(f"{table(outcome)}\n{judge_line(outcome)}" + _advice(outcome)))
    emit(result_event(outcome))


def _advice(outcome: RaceOutcome) -> str:
    lines = [outcome.note] if outcome.note else []
    if outcome.winner:
        lines.append(f"merge it with /merge {outcome.winner} (judged by {outcome.judged_by})")
    return "".join(f"\n{line}" for line in lines)


def result_event(outcome: RaceOutcome) -> SwarmResult:
    rows = [
        SwarmCandidate(
            name=r.name,
            model=r.spec.model,
            outcome=r.outcome,
            patch_bytes=r.patch_bytes,
            tests=r.tests.describe() if r.tests is not None else "",
            tests_green=bool(r.tests is not None and r.tests.green),
            seconds=round(r.seconds, 2),
            prompt_tokens=r.prompt_tokens,
            output_tokens=r.output_tokens,
        )
        for r in outcome.results
    ]
    return SwarmResult(outcome.winner or "", outcome.judged_by, outcome.note, rows)


def merge_into(
    cwd: Path, name: str, cleanup: bool, journal: UndoJournal, emit: Callable[[Event], None]
) -> bool:
    """Merge candidate `name` (when given) into the tree at `cwd`, journaled in `journal`,
    then remove the worktrees when asked; the outcome as info or warning."""
    try:
        root = repo_root(cwd)
        if name:
            merged = merging.merge(root, name, journal)
            text = f"merged {name}: {', '.join(merged.files)} (staged; /undo takes it back)"
            if merged.conflicts:
                text += "\nconflicts in " + ", ".join(merged.conflicts) + ": resolve the markers"
            emit(Info(text))
        if cleanup:
            removed = merging.cleanup(root)
            emit(Info(f"removed {len(removed)} swarm worktree(s)"))
    except (RiftError, OSError) as exc:
        emit(Warning(f"merge: {exc}"))
        return False
    return True


def describe_worktrees(cwd: Path) -> str:
    """`/worktrees`: the race's checkouts and patches."""
    try:
        root = repo_root(cwd)
    except SwarmError as exc:
        return str(exc)
    places = worktrees.registered(root)
    patches = merging.available(root)
    if not places and not patches:
        return "no swarm worktrees or patches (start a race with /swarm <task>)"
    lines = [f"worktrees under {worktrees.worktrees_dir(root)}:"]
    lines += [f"  {p.name}" for p in places] or ["  (none)"]
    lines.append("patches (merge one with /merge <name>):")
    for name in patches:
        size = worktrees.patch_path(root, name).stat().st_size
        lines.append(f"  {name}  {size} bytes" if size else f"  {name}  (no changes)")
    return "\n".join(lines)

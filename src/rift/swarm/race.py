"""One race from start to verdict: worktrees, candidates, patches, judges.


The repository is checked and `.rift/swarm.lock` taken; each candidate gets a detached
worktree of HEAD, at most `max_parallel` run at once, and each one's changes become
`.rift/patches/<name>.patch` as soon as it ends (a failing candidate fails alone); then the
judges pick, and the worktrees stay until `rift merge --cleanup`.

A cancel or an unexpected error stops every candidate (killing its commands) and removes
every worktree this race created before the lock is released. The person's own tree is
never written.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from msgspec import Struct
from msgspec.structs import replace

from rift.config.load import Config
from rift.errors import ModelError, RiftError
from rift.events import Event, Info, SubagentActivity, SwarmStarted, Warning
from rift.pool.scheduler import usage_lines
from rift.swarm import candidates, judge, testjudge, worktrees
from rift.swarm.candidates import CandidateResult, CandidateRun, CandidateSpec, StartCandidate
from rift.swarm.gitrepo import (
    SwarmError,
    exclude_race_files,
    head_commit,
    is_dirty,
    repo_root,
    run_git,
)

log = logging.getLogger("rift.swarm")
TESTS = "tests"


class RaceOptions(Struct, frozen=True):
    """What `rift swarm` was asked to do."""

    task: str
    models: tuple[str, ...]
    attempts: int = 1
    explore: bool = False
    judges: tuple[str, ...] | None = None
    """"tests" and/or one chat judge's model name; empty: no judge, no winner; None: the
    tests judge when a test command is given or found, else none."""
    test_cmd: str | None = None
    parallel: int | None = None


class RaceOutcome(Struct, dict=True):
    """The race's results and verdict."""

    root: Path
    commit: str
    results: list[CandidateResult]
    winner: str | None = None
    judged_by: str = "none"
    note: str = ""
    """Why there is no winner, or what a judge could not do."""
    test_command: str | None = None


def judges_named(given: Sequence[str]) -> tuple[str, ...] | None:
    """`--judge` values (repeated or comma-separated) as judges; None when none was named
    (the race then decides), () for "none"."""
    named = [j.strip() for item in given for j in item.split(",") if j.strip()]
    if any(j.lower() == "none" for j in named):
        return ()
    if not named:
        return None
    return tuple(dict.fromkeys(TESTS if j.lower() == TESTS else j for j in named))


async def race(
    config: Config, options: RaceOptions, emit: Callable[[Event], None], start: StartCandidate
) -> RaceOutcome:
    """Run the race in `config.cwd`'s repository; `start` brings up each candidate.
    SwarmError: no repository, no commit, another race running, no test command for the
    tests judge, or a worktree that git would not create."""
    root = repo_root(config.cwd)
    commit = head_commit(root)
    rel = _relative(config.cwd, root)
    test_command = options.test_cmd
    if options.judges is None:
        found = test_command or testjudge.detect_command(root / rel, root)
        options = replace(options, judges=(TESTS,) if found else ())
    judges = options.judges or ()
    if len([j for j in judges if j != TESTS]) > 1:
        raise SwarmError("give at most one chat judge model (plus 'tests')")
    if TESTS in judges and not test_command:
        test_command = testjudge.detect_command(root / rel, root)
        if test_command is None:
            raise SwarmError(
                "the tests judge found no test command (pytest, npm test, go test, cargo test):"
                " pass --test-cmd CMD"
            )
    if TESTS in judges and test_command and testjudge.bare_interpreter(test_command):
        raise SwarmError(
            f"the tests judge will not run {test_command!r}: a bare interpreter reads nothing"
            " and exits 0, so every candidate would pass; quote the whole command, e.g."
            " --test-cmd 'python3 check_calc.py'"
        )
    exclude_race_files(root)
    created: list[Path] = []
    with worktrees.RaceLock(root).held():
        try:
            outcome = RaceOutcome(root, commit, [], test_command=test_command)
            await _run(config, options, emit, start, outcome, rel, created)
            return outcome
        except BaseException:
            for path in created:  # a cancelled or crashed race leaves no checkout behind
                worktrees.remove(root, path)
            run_git(root, "worktree", "prune")
            raise


async def _run(
    config: Config,
    options: RaceOptions,
    emit: Callable[[Event], None],
    start: StartCandidate,
    outcome: RaceOutcome,
    rel: Path,
    created: list[Path],
) -> None:
    root, commit = outcome.root, outcome.commit
    specs = candidates.plan(options.models, options.attempts, options.explore)
    cap = await candidates.max_parallel(config, options.models, options.parallel)
    worktrees.clear_patches(root)
    pace = "one at a time" if cap == 1 else f"up to {cap} at once"
    names = ", ".join(s.name for s in specs)
    count = f"{len(specs)} candidate" + ("s" if len(specs) != 1 else "")
    emit(Info(f"swarm: {count} from {commit[:10]} ({pace}): {names}"))
    if is_dirty(root):
        emit(Warning("candidates start from HEAD: your uncommitted changes are not in them"))
    for spec in specs:
        created.append(worktrees.create(root, spec.name, commit))
    places = list(created)  # this race's own: `race` hands `created` in empty
    emit(SwarmStarted(options.task, [s.name for s in specs]))
    slots: asyncio.Queue[int] = asyncio.Queue()
    for slot in range(1, cap + 1):  # slot 0 stays with the conversation that raced
        slots.put_nowait(slot)
    serial = asyncio.Lock()
    runs = [
        CandidateRun(spec, options.task, config, place / rel, emit, serial, start)
        for spec, place in zip(specs, places, strict=True)
    ]
    async with asyncio.TaskGroup() as group:
        tasks = [
            group.create_task(_one(run, root, place, commit, slots))
            for run, place in zip(runs, places, strict=True)
        ]
    outcome.results = [t.result() for t in tasks]
    for line in usage_lines():  # a server pool: where the attempts ran
        emit(Info(line))
    await _judge(config, options, emit, outcome, rel)


async def _one(
    run: CandidateRun, root: Path, place: Path, commit: str, slots: asyncio.Queue[int]
) -> CandidateResult:
    """One candidate, then its patch; its own failures end up in its result."""
    run.slot = await slots.get()  # its own server slot while it runs (`Agent.slot`)
    try:
        result = await candidates.run_candidate(run)
    except (RiftError, OSError) as exc:
        result = CandidateResult(run.spec, reason=str(exc).splitlines()[0])
    except Exception as exc:  # a bug must not take the other candidates down
        log.exception("swarm candidate %s failed", run.spec.name)
        result = CandidateResult(run.spec, reason=f"internal error: {exc!r}")
    finally:
        slots.put_nowait(run.slot)
    dest = worktrees.patch_path(root, run.spec.name)
    try:
        result.patch_bytes = worktrees.capture_patch(root, place, commit, dest)
        result.patch = dest
    except SwarmError as exc:
        _say(run.emit, run.spec, f"no patch: {exc}", warn=True)
        return result
    size = f"patch {result.patch_bytes} bytes" if result.patch_bytes else "(no changes)"
    _say(
        run.emit, run.spec, f"finished: {result.outcome}, {size}", warn=result.outcome != "answered"
    )
    return result


def _say(emit: Callable[[Event], None], spec: CandidateSpec, text: str, warn: bool = False) -> None:
    emit(SubagentActivity(tag=spec.name, text=text, warn=warn))


async def _judge(
    config: Config,
    options: RaceOptions,
    emit: Callable[[Event], None],
    outcome: RaceOutcome,
    rel: Path,
) -> None:
    results = outcome.results
    changed = [r for r in results if r.patch_bytes > 0]
    judges = options.judges or ()
    use_tests = TESTS in judges
    model = next((j for j in judges if j != TESTS), None)  # at most one (see `race`)
    outcome.judged_by = "+".join(filter(None, (TESTS if use_tests else None, model))) or "none"
    if not judges:
        outcome.note = "no judge: compare the patches and merge one"
        return
    if not changed:
        outcome.note = "no candidate changed anything"
        return
    eligible = changed
    if use_tests:
        await _run_tests(config, emit, outcome, changed, rel)
        best = testjudge.best_by_tests(changed)
        if best is None:
            outcome.note = "no candidate's patch passes the tests"
            return
        outcome.winner = best.name
        eligible = [r for r in testjudge.rank(changed) if r.tests is not None and r.tests.green]
        if model is None or len(eligible) == 1:
            return
    assert model is not None
    emit(Info(f"judge: asking {model} to choose among {', '.join(r.name for r in eligible)}"))
    try:
        answer = await judge.ask_judge(model, config, options.task, eligible)
    except ModelError as exc:
        outcome.note = f"the chat judge failed: {str(exc).splitlines()[0]}"
        return
    verdict = judge.parse_winner(answer, [r.name for r in eligible])
    if verdict.winner is not None:
        outcome.winner = verdict.winner
        return
    reason = verdict.problem or "the chat judge answered none"
    outcome.note = reason + ("; the tests' pick stands" if use_tests else "")


async def _run_tests(
    config: Config,
    emit: Callable[[Event], None],
    outcome: RaceOutcome,
    changed: Sequence[CandidateResult],
    rel: Path,
) -> None:
    command = outcome.test_command
    assert command is not None
    emit(Info(f"judge: running '{command}' in each candidate's worktree"))
    warned = False
    for result in changed:
        place = worktrees.worktrees_dir(outcome.root) / result.name / rel
        run, problem = await testjudge.run_tests(command, place, config)
        if problem and not warned:
            emit(Warning(problem))
            warned = True
        result.tests = run
        _say(
            emit, result.spec, f"tests: {run.describe()} in {run.seconds:.1f}s", warn=not run.green
        )


def _relative(cwd: Path, root: Path) -> Path:
    """Where the person stands inside the repository (candidates stand at the same place)."""
    try:
        return Path(os.path.realpath(cwd)).relative_to(os.path.realpath(root))
    except ValueError:
        return Path()

"""`rift swarm "<task>" ...` and `rift merge <name> [--cleanup]` on the command line.

Exit status of `rift swarm`: 0 when a judge picked a winner (or no judge was
asked for), 1 when the judges picked none, 2 when the race could not start
(bad flags, no repository, no commit, a model that cannot be used by any
candidate), 130 when it was cancelled. Ctrl-C and SIGTERM cancel the race:
every candidate stops, its commands are killed and every worktree of the race
is removed before rift exits; a second signal during that cleanup is ignored.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path

from rift.config.load import Config, flag_overrides, load_config
from rift.errors import RiftError
from rift.fs.checkpoints import UndoJournal
from rift.swarm import merge as merging
from rift.swarm.candidates import StartCandidate
from rift.swarm.gitrepo import SwarmError, repo_root
from rift.swarm.race import RaceOptions, RaceOutcome, judges_named, race
from rift.swarm.report import ActivityPrinter, as_json, judge_line, table

EXIT_WINNER, EXIT_NO_WINNER, EXIT_USAGE, EXIT_CANCELLED = 0, 1, 2, 130


def run(argv: list[str], start: StartCandidate) -> int:
    """Run the subcommand `argv[0]` with its arguments; the exit status. `start` brings
    up each candidate of a race (the core's, handed down by rift's CLI)."""
    if argv[0] == "swarm":
        return _swarm(_swarm_parser().parse_args(argv[1:]), start)
    return _merge(_merge_parser().parse_args(argv[1:]))


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def _swarm_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rift swarm",
        description="Race candidates on one task, each in its own git worktree; the judges"
        " pick a winner and `rift merge <name>` applies it.",
    )
    add = parser.add_argument
    add("task", help="the task every candidate gets")
    add("--models", help="comma-separated models, one candidate each (default: the model)")
    add("--attempts", type=_positive, default=1, help="candidates per model (default 1)")
    add("--explore", action="store_true", help="add a temperature-0.8 copy of each model")
    add(
        "--judge",
        action="append",
        default=[],
        metavar="MODEL|tests|none",
        help="'tests' (the project's tests), a chat judge model, or both (repeat or"
        " comma-separate); default: tests when a test command is found, else none",
    )
    add("--test-cmd", metavar="CMD", help="the test command for the tests judge")
    add("--parallel", type=_positive, help="candidates at once on a model server (default 1)")
    add("--no-tui", action="store_true", help="plain output (the only output for now)")
    add("--output-format", choices=("text", "json"), default="text")
    add("--host", help="model server URL")
    add("-m", "--model", help="the model when --models is not given")
    add("--num-ctx", type=int, help="context window in tokens")
    add("--temp", type=float, help="sampling temperature of the plain candidates")
    add("--max-iterations", type=int, help="agent-loop iterations per candidate")
    add("--effort", choices=("minimal", "low", "medium", "high", "xhigh", "max"))
    add("--trust-project", action="store_true", help="trust .rift.json host settings")
    return parser


def _merge_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rift merge",
        description="Apply a swarm candidate's patch (git apply --3way) to this tree.",
    )
    parser.add_argument("name", nargs="?", help="the candidate, e.g. 1-qwen3-8b")
    parser.add_argument("--cleanup", action="store_true", help="then remove every swarm worktree")
    return parser


def _swarm(args: argparse.Namespace, start: StartCandidate) -> int:
    config = load_config(os.environ, Path.cwd(), flag_overrides(args))
    from rift.logs import log_to_file

    log_to_file(config.paths.log_file)
    if not args.task.strip():
        return _fail("the task is empty")
    models = tuple(m.strip() for m in (args.models or "").split(",") if m.strip())
    options = RaceOptions(
        task=args.task,
        models=models or (config.model,),
        attempts=args.attempts,
        explore=args.explore,
        judges=judges_named(args.judge),
        test_cmd=args.test_cmd,
        parallel=args.parallel,
    )
    for warning in config.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    try:
        outcome = asyncio.run(_race(config, options, start))
    except SwarmError as exc:
        return _fail(str(exc))
    if outcome is None:
        print("swarm cancelled: every candidate stopped, its worktree removed", file=sys.stderr)
        return EXIT_CANCELLED
    if args.output_format == "json":
        print(json.dumps(as_json(outcome), ensure_ascii=False))
    else:
        print(table(outcome))
        print(judge_line(outcome))
    if outcome.note:
        print(outcome.note, file=sys.stderr)
    if outcome.winner:
        print(
            f"merge it: rift merge {outcome.winner}"
            f" (add --cleanup to remove the worktrees; judged by {outcome.judged_by})",
            file=sys.stderr,
        )
    failed = [r for r in outcome.results if r.outcome == "error" and not r.patch_bytes]
    if failed and len(failed) == len(outcome.results):
        return _fail(f"no candidate could run: {failed[0].reason or 'see the lines above'}")
    judged = outcome.judged_by != "none"
    return EXIT_NO_WINNER if judged and outcome.winner is None else EXIT_WINNER


async def _race(config: Config, options: RaceOptions, start: StartCandidate) -> RaceOutcome | None:
    """The race, or None when a signal cancelled it (after its cleanup)."""
    task = asyncio.current_task()
    assert task is not None
    loop = asyncio.get_running_loop()
    stopping = False

    def stop() -> None:
        nonlocal stopping
        if not stopping:  # a second Ctrl-C must not cut the cleanup short
            stopping = True
            task.cancel()

    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop)
    try:
        return await race(config, options, ActivityPrinter(), start)
    except asyncio.CancelledError:
        if not stopping:
            raise
        task.uncancel()
        return None
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)


def _merge(args: argparse.Namespace) -> int:
    if not args.name and not args.cleanup:
        return _fail("rift merge needs a candidate name (or --cleanup)")
    merged: merging.Merged | None = None
    try:
        root = repo_root(Path.cwd())
        if args.name:
            merged = merging.merge(root, args.name, UndoJournal())
            _report_merge(merged)
        if args.cleanup:
            removed = merging.cleanup(root)
            print(f"removed {len(removed)} swarm worktree(s)", file=sys.stderr)
    except RiftError as exc:
        return _fail(str(exc))
    return EXIT_NO_WINNER if merged is not None and merged.conflicts else EXIT_WINNER


def _report_merge(merged: merging.Merged) -> None:
    files = ", ".join(merged.files)
    print(f"merged {merged.name}: {len(merged.files)} file(s) changed and staged ({files})")
    if merged.conflicts:
        print(
            "conflicts in " + ", ".join(merged.conflicts) + ": resolve the markers, then git add",
            file=sys.stderr,
        )
    print(f"to undo: git apply -R --index .rift/patches/{merged.name}.patch", file=sys.stderr)


def _fail(message: str) -> int:
    print(f"rift: {message}", file=sys.stderr)
    return EXIT_USAGE

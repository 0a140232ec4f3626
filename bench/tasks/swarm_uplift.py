"""Does racing pay? One plain run against `rift swarm --attempts N --judge tests`, same tasks.

    python bench/tasks/swarm_uplift.py --tasks add_function,json_setting [--attempts 3]
        [--model embedded] [--host URL] [--save bench/results/swarm_uplift.jsonl]

For each task, in the same run and alternating which goes first: a fresh repository
of the fixture gets one `rift -p` (scored by the task's verify.sh, as run_tasks.py
scores), and another fresh one gets `rift swarm --attempts N --judge tests` whose
test command is that same verify.sh, then `rift merge <winner>` and verify.sh in the
person's tree. The tiny fixtures carry no tests of their own, so the judge's tests are
the task's hidden check: the swarm figure is "any of N attempts passes, and the race
found and merged it", the ceiling a project's own tests would reach.

Prints one JSON line per task and a summary; with --save the lines are appended there.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run_tasks import (  # noqa: E402
    LANGS,
    _python3_dir,
    all_tasks,
    copy_fixture,
    fixtures,
    read_prompt,
    rift_env,
    run_rift,
    verify,
)

TIER = "tiny"


def _env(work: Path) -> dict[str, str]:
    env = rift_env(work / "home", user_config=False)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    env["XDG_CACHE_HOME"] = cache  # one assembled model for every run
    env["PATH"] = _python3_dir() + os.pathsep + env.get("PATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _model_args(args: argparse.Namespace) -> list[str]:
    return ["-m", args.model] + (["--host", args.host] if args.host else [])


def single(name: str, args: argparse.Namespace, rift: list[str]) -> dict[str, Any]:
    prompt = read_prompt(name, TIER, args.lang)
    work = Path(tempfile.mkdtemp(prefix=f"rift-single-{name}-"))
    try:
        repo = copy_fixture(name, work / "repo", tier=TIER, git=True)
        started = time.perf_counter()
        cmd = [*rift, "-p", prompt, *_model_args(args), "--output-format", "json"]
        rc, timed_out = run_rift(cmd, repo, _env(work), args.timeout)
        secs = time.perf_counter() - started
        ok, _ = verify(name, repo, TIER)
        return {"ok": ok, "secs": round(secs, 1), "rc": rc, "timed_out": timed_out}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def swarm(name: str, args: argparse.Namespace, rift: list[str]) -> dict[str, Any]:
    prompt = read_prompt(name, TIER, args.lang)
    work = Path(tempfile.mkdtemp(prefix=f"rift-swarm-{name}-"))
    try:
        repo = copy_fixture(name, work / "repo", tier=TIER, git=True)
        env = _env(work)
        check = f"bash {fixtures(TIER) / name / 'verify.sh'}"
        cmd = [*rift, "swarm", prompt, *_model_args(args), "--attempts", str(args.attempts)]
        cmd += ["--judge", "tests", "--test-cmd", check, "--no-tui", "--output-format", "json"]
        started = time.perf_counter()
        rc, timed_out = run_rift(cmd, repo, env, args.timeout * args.attempts)
        secs = time.perf_counter() - started
        try:
            race = json.loads((work / "rift.out").read_text(encoding="utf-8").splitlines()[-1])
        except (OSError, IndexError, ValueError):
            race = {}
        winner = race.get("winner")
        passing = sum(
            1 for c in race.get("candidates", []) if (c.get("tests") or {}).get("exit_code") == 0
        )
        ok = False
        if winner:
            run_rift([*rift, "merge", winner, "--cleanup"], repo, env, 120)
            ok, _ = verify(name, repo, TIER)
        return {
            "ok": ok,
            "secs": round(secs, 1),
            "rc": rc,
            "timed_out": timed_out,
            "winner": winner,
            "candidates_passing": passing,
            "candidates": len(race.get("candidates", [])),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", help="comma-separated tiny tasks (default: all)")
    parser.add_argument("--attempts", type=int, default=3)
    parser.add_argument("--model", default="embedded")
    parser.add_argument("--host")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--lang", choices=LANGS, default="en", help="the prompts' language")
    args = parser.parse_args(argv)
    rift = [sys.executable, "-m", "rift"]
    names = args.tasks.split(",") if args.tasks else all_tasks(TIER)
    rows = []
    for index, name in enumerate(names):
        order = (single, swarm) if index % 2 == 0 else (swarm, single)
        results = {fn.__name__: fn(name, args, rift) for fn in order}
        row = {"task": name, "attempts": args.attempts, "model": args.model, **results}
        rows.append(row)
        line = json.dumps(row)
        print(line, flush=True)
        if args.save:
            with args.save.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")
    solo = sum(r["single"]["ok"] for r in rows)
    raced = sum(r["swarm"]["ok"] for r in rows)
    solo_s = sum(r["single"]["secs"] for r in rows)
    raced_s = sum(r["swarm"]["secs"] for r in rows)
    print(
        f"single run: {solo}/{len(rows)} passed, {solo_s:.0f} s in all;"
        f" swarm --attempts {args.attempts} --judge tests: {raced}/{len(rows)} passed,"
        f" {raced_s:.0f} s in all"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

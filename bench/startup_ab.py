"""Startup and stream rate of this checkout against an earlier commit, side by side.

    python bench/startup_ab.py --base REV [--pairs N] [--deltas N] [--callgrind]

bench/run.py measures one tree against `python -c pass`; a change to how rift is
built (records, packages, imports) needs the tree before it measured in the same
run. This script checks REV out into a temporary worktree and runs bench/run.py's
own functions on both trees, alternating which goes first in each pair after one
warm-up pair (bytecode cached for both): `--serve` spawn → ready (and its CPU),
`import rift.frontends.serve`, `rift --version`, the scripted `-p` task's spawn →
first model request, and model deltas relayed per second through `--serve`. Each
figure is the median of the pairs' ratios (this tree / REV), since a shared
machine's load moves both sides of a pair together.

`--callgrind` adds instruction counts (valgrind, deterministic to ~0.1%) for
`--serve` spawn → ready → stdin EOF and for the whole `-p` task, one run each after
a warm-up: the figure a loaded machine cannot blur.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import run  # bench/run.py, beside this file

FIGURES = ("ready", "ready_cpu", "serve_import", "version", "task_first", "deltas")
LABELS = {
    "ready": "--serve: spawn → ready",
    "ready_cpu": "  its CPU (user+sys)",
    "serve_import": "import rift.frontends.serve",
    "version": "rift --version",
    "task_first": "-p task: spawn → 1st request",
    "deltas": "--serve: deltas relayed/s",
}


def worktree(rev: str, into: Path) -> Path:
    """REV checked out (detached) under `into`; its src/ directory."""
    subprocess.run(
        ["git", "-C", str(run.REPO), "worktree", "add", "-q", "--detach", str(into), rev],
        check=True,
    )
    return into / "src"


def measure(sb: run.Sandbox, deltas: int) -> dict[str, float]:
    """One of each figure for the rift on `sb.env`'s PYTHONPATH."""
    cpu: list[float] = []
    ready = run.serve_ready(sb, cpu=cpu)
    imported = run.run_proc([run.PY, "-c", "import rift.frontends.serve"], sb.root, sb.env)
    version = run.run_proc([*run.RIFT, "--version"], sb.root, sb.env)
    task = run.task_once(sb)
    rate = run.serve_stream_rate(sb, deltas)[0]
    return {
        "ready": ready,
        "ready_cpu": cpu[0],
        "serve_import": imported.secs,
        "version": version.secs,
        "task_first": task.first_request,
        "deltas": rate,
    }


def interleaved(
    sides: dict[str, Path], pairs: int, deltas: int
) -> dict[str, list[dict[str, float]]]:
    """Every side measured once per pair, the order flipped each pair; pair 0 is a warm-up."""
    found: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    names = list(sides)
    with run.sandbox() as sb:
        env = dict(sb.env)
        for i in range(pairs + 1):
            for name in names if i % 2 == 0 else names[::-1]:
                sb.env.clear()
                sb.env.update(env, PYTHONPATH=str(sides[name]))
                figures = measure(sb, deltas)
                if i:
                    found[name].append(figures)
    return found


def callgrind(sides: dict[str, Path]) -> dict[str, dict[str, int]]:
    """Instruction counts of `--serve` to ready and EOF, and of the whole `-p` task."""
    counts: dict[str, dict[str, int]] = {}
    with run.sandbox() as sb:
        env = dict(sb.env)
        for name, src in sides.items():
            with run.Server({}, sb.root) as server:
                serve = ["--serve", "--host", server.url, "--model", run.MODEL]
                _counted(src, serve, sb.project(), env)  # warm-up
                ready = _counted(src, serve, sb.project(), env)
            task_counts = []
            for _ in range(2):  # warm-up, then the counted run; each needs a fresh script
                with run.Server(run.TASK_SCRIPT, sb.root) as server:
                    proj = sb.project({"calc.py": run.BUGGY})
                    argv = [
                        "-p",
                        "fix add() in calc.py",
                        "--host",
                        server.url,
                        "--model",
                        run.MODEL,
                    ]
                    task_counts.append(_counted(src, argv, proj, env))
            counts[name] = {"serve_ready_eof": ready, "task": task_counts[-1]}
    return counts


def _counted(src: Path, argv: list[str], cwd: Path, env: dict[str, str]) -> int:
    """Instructions valgrind counts for one rift process with `argv`."""
    cmd = [*run.RIFT, *argv]
    counted = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        cwd=cwd, env=dict(env, PYTHONPATH=str(src)), stdin=subprocess.DEVNULL,
        capture_output=True, text=True,
    )  # fmt: skip
    match = re.search(r"refs:\s+([\d,]+)", counted.stderr)
    if not match:
        raise RuntimeError(f"valgrind gave no count: {counted.stderr[-500:]}")
    return int(match.group(1).replace(",", ""))


def ratio_of(found: dict[str, list[dict[str, float]]], key: str, base: str, new: str) -> float:
    pairs = zip(found[base], found[new], strict=True)
    return statistics.median(n[key] / b[key] for b, n in pairs if b[key])


def report(found: dict[str, list[dict[str, float]]], base: str, new: str) -> list[str]:
    lines = [f"{'':32s} {base:>12s} {new:>12s}   {new}/{base} (median of paired ratios)"]
    for key in FIGURES:
        b = statistics.median(r[key] for r in found[base])
        n = statistics.median(r[key] for r in found[new])
        unit: Callable[[float], str] = (
            (lambda v: f"{v:,.0f}/s") if key == "deltas" else (lambda v: f"{v * 1000:.1f} ms")
        )
        better = "  better" if (key == "deltas") == (n > b) else ""
        ratio = ratio_of(found, key, base, new)
        lines.append(f"{LABELS[key]:32s} {unit(b):>12s} {unit(n):>12s}   {ratio:.3f}x{better}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the commit to compare against")
    parser.add_argument("--pairs", type=int, default=12, help="measured pairs (default 12)")
    parser.add_argument("--deltas", type=int, default=20_000, help="deltas per stream run")
    parser.add_argument("--callgrind", action="store_true", help="add instruction counts")
    parser.add_argument("--json", type=Path, help="write every measurement here")
    args = parser.parse_args(argv)
    head = subprocess.run(
        ["git", "-C", str(run.REPO), "rev-parse", "--short", "HEAD"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    base_name = args.base[:12]
    tmp = Path(tempfile.mkdtemp(prefix="rift-startup-ab-"))
    try:
        sides = {base_name: worktree(args.base, tmp / "base"), head: run.SRC}
        print(f"# {base_name} against {head} (this checkout), {args.pairs} pairs, {run.loadavg()}")
        found = interleaved(sides, args.pairs, args.deltas)
        print("\n".join(report(found, base_name, head)))
        counts = callgrind(sides) if args.callgrind else {}
        for what in ("serve_ready_eof", "task") if counts else ():
            b, n = counts[base_name][what], counts[head][what]
            print(f"instructions, {what:16s} {b / 1e6:10.1f} M {n / 1e6:10.1f} M   {n / b:.3f}x")
        if args.json:
            args.json.write_text(json.dumps({"found": found, "instructions": counts}, indent=1))
    finally:
        subprocess.run(
            ["git", "-C", str(run.REPO), "worktree", "remove", "--force", str(tmp / "base")],
            check=False,
        )
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

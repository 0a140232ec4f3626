"""Check the task fixtures themselves: every verify.sh must FAIL on the unmodified
fixture (or the task scores a model for nothing) and PASS once the reference
solution in bench/tasks/solutions/<name>/ is laid over it (or no model can win).

    python bench/tasks/check_fixtures.py [--tasks a,b] [--no-solutions]

Exits non-zero and names the offenders when any fixture is broken.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_tasks import TIERS, all_tasks, copy_fixture, solutions, verify


def check(name: str, with_solutions: bool, tier: str) -> list[str]:
    """Problems with one fixture; empty when it is sound."""
    problems = []
    work = Path(tempfile.mkdtemp(prefix=f"rift-fixture-{name}-"))
    try:
        before = copy_fixture(name, work / "before", tier=tier, git=True)
        passed, _ = verify(name, before, tier)
        if passed:
            problems.append(f"{name}: verify.sh passes on the unmodified fixture")
        if with_solutions:
            overlay = solutions(tier) / name
            if not overlay.is_dir():
                problems.append(f"{name}: no reference solution in {overlay}")
            else:
                after = copy_fixture(name, work / "after", overlay=overlay, tier=tier, git=True)
                passed, output = verify(name, after, tier)
                if not passed:
                    problems.append(f"{name}: verify.sh fails on the reference solution:\n{output}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", help="comma-separated task names (default: all)")
    parser.add_argument("--no-solutions", action="store_true", help="only the must-fail check")
    parser.add_argument("--tier", choices=sorted(TIERS), default="full", help="task tier")
    args = parser.parse_args(argv)
    tasks = args.tasks.split(",") if args.tasks else all_tasks(args.tier)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda t: check(t, not args.no_solutions, args.tier), tasks))
    problems = [p for found in results for p in found]
    for problem in problems:
        print(problem, file=sys.stderr)
    what = "fail before the fix" if args.no_solutions else "fail before and pass after the fix"
    print(f"{len(tasks) - sum(bool(r) for r in results)}/{len(tasks)} fixtures {what}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())

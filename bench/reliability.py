"""rift's reliability figures: one command, every promise turned into a number.

    python bench/reliability.py [--quick] [--only NAME ...] [--seed N] [--json PATH]

Sections (bench/reliability_checks/, each module's docstring has the details):

    fuzz      protocol fuzzing: one `rift --serve`, 100,000 random and mutated lines
              (--quick: 300); crashes, missing warnings, non-JSON stdout must be 0
    faults    fault injection with the fake model server, both wire formats: every
              turn ends with one `done` in bounded time, the session stays valid,
              the next prompt works
    crash     `kill -9` at random moments of turns, saves and approvals, 100 times
              (--quick: 10): no session, config or trust store half-written, no
              completed turn lost
    bypass    the permission gate against tests/reliability/bypass_corpus.json,
              in-process and end to end through `rift -p`
    hygiene   cancel, stdin EOF and SIGTERM mid-bash and with background tasks:
              no process left
    sandbox   `permissions.sandbox: "bwrap"`: writes outside the project and the
              network are refused, the fallback warns (skipped where bubblewrap
              cannot create namespaces)
    attacks   every attack family with tried/refused counts: the corpus's
              `family` fields (bash-syntax, ...) and the end-to-end attack
              scenarios (sandbox-root, background-input, sandbox-escape,
              process-hygiene); each family must refuse every case

Every figure with a required value is checked; the exit status is 1 when one
fails. The same checks run bounded in CI as `tests/reliability/` (marker
`reliability`). Results also go to bench/results/reliability.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import reliability_checks.public_mechanisms  # noqa: F401  (registers its attack families)
import reliability_checks.write_seams  # noqa: F401  (registers its attack families)
from reliability_checks import net_seams  # noqa: F401  (registers its attack families)
from reliability_checks.attacks import run_attacks
from reliability_checks.bypass import run_bypass
from reliability_checks.common import REPO, Report
from reliability_checks.crash import run_crash
from reliability_checks.faults import run_faults
from reliability_checks.fuzz import run_fuzz
from reliability_checks.hygiene import run_hygiene
from reliability_checks.sandbox_check import run_sandbox

RESULTS = REPO / "bench" / "results" / "reliability.json"
SECTIONS = ("fuzz", "faults", "crash", "bypass", "hygiene", "sandbox", "attacks")


def plan(quick: bool, seed: int) -> dict[str, Callable[[], Report]]:
    return {
        "fuzz": lambda: run_fuzz(300 if quick else 100_000, seed=seed),
        "faults": run_faults,
        "crash": lambda: run_crash(10 if quick else 100, seed=seed),
        "bypass": run_bypass,
        "hygiene": run_hygiene,
        "sandbox": run_sandbox,
        "attacks": lambda: run_attacks(pytest_cases=not quick),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="CI sizes (about a minute)")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, help="run only these sections")
    parser.add_argument("--seed", type=int, default=1234, help="fuzzing and kill-timing seed")
    parser.add_argument("--json", type=Path, default=RESULTS, help="where to write the results")
    args = parser.parse_args(argv)
    runs = plan(args.quick, args.seed)
    reports: list[Report] = []
    started = time.monotonic()
    for name in args.only or SECTIONS:
        section_start = time.monotonic()
        report = runs[name]()
        reports.append(report)
        print(report.describe())
        print(f"  ({time.monotonic() - section_start:.1f} s)\n", flush=True)
    failing = [f"{r.title}: {f.name}" for r in reports for f in r.failing()]
    print(f"total {time.monotonic() - started:.1f} s;", "all figures hold" if not failing else "")
    for line in failing:
        print(f"FAILED {line}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(
        json.dumps(
            {
                "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                "machine": f"{platform.system()} {platform.machine()}, Python"
                f" {platform.python_version()}",
                "quick": args.quick,
                "seed": args.seed,
                "reports": [asdict(r) for r in reports],
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    return 1 if failing else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""aider's benchmark method on Exercism Python practice exercises, agents side by side.

    python bench/exercism.py --exercises ../shared/exercism-python
        [--agents rift-embedded,rift-server,aider] [--slugs a,b | --split dev|held-out]
        [--limit N] [--timeout 300] [--until HH:MM] [--resume]
        [--save bench/results/exercism_side_by_side.txt]
        [--gguf FILE] [--llama-server PATH] [--server-url URL] [--online] [--keep]

Why: a yardstick people already trust. For every exercise and every agent:
a fresh git repository in a temp dir holding what a person solving the
exercise gets (the stub, the tests, `.docs`); the instructions
(introduction + instructions + append, then a short addendum naming the stub,
as aider's harness words it) as the one prompt; the tests restored from the
original before they run, so editing a test cannot help; when they fail, a
second try continuing the same conversation with the tail of the test output.
Reported per agent: pass@1, pass@2, wall time (the agent's, tests excluded),
model requests, prompt tokens, and damaged files (tracked files other than the
stub that a try changed or deleted).

The exercises folder is a path (`../shared/exercism-python`, with its
`exercises.json` of difficulties, or a checkout of exercism/python with
`exercises/practice/<slug>/` and the track's `config.json`); nothing is copied
into this project. `--limit N` takes the N easiest (difficulty, then the
listing's order). One model process at a time: llama-server (see
tasks/llama_server.py) runs only while a server agent works, and the agent
order alternates per exercise. The whole run is re-executed in its own network
namespace (tasks/offline.py) unless --online or --server-url is given. The
table (and a .jsonl of every run) is rewritten after every exercise; with
--resume the pairs already in that .jsonl are skipped (a long run in slices).

Tuning and reporting use different exercises: `--split dev` (50, tune on
these) or `--split held-out` (the other 55, report only). The split is
`random.Random(41).shuffle(sorted slugs)`, the first 50 dev; it is written once
to bench/results/exercism_split.json (committed) and read from there after, so
it cannot drift. `--split-file` names another file, for another exercise set.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "tasks"))
import agents as ag  # noqa: E402
import run_tasks  # noqa: E402
import side_run  # noqa: E402
import side_table  # noqa: E402

SPLIT_FILE = HERE / "results" / "exercism_split.json"
SPLIT_SEED = 41
DEV_SIZE = 50
SPLITS = ("dev", "held-out")
TEST_TIMEOUT = 60  # aider's harness gives the unit tests a minute
TAIL_LINES = 50
ADDENDUM = """
####

Use the above instructions to modify the supplied files: {files}
Keep the names of the existing functions and classes: other code, such as unit tests, uses them.
Use only the Python standard library; do not install packages.
"""
RETRY = """
####

See the test errors above.
The tests are correct; do not change them.
Fix the code in {files} so that they pass.
"""


@dataclass(frozen=True)
class Exercise:
    slug: str
    difficulty: int
    folder: Path
    solution: list[str]
    tests: list[str]


# ---------------------------------------------------------------- exercises


def practice_dir(root: Path) -> Path:
    for candidate in (root / "practice", root / "exercises" / "practice"):
        if candidate.is_dir():
            return candidate
    raise SystemExit(f"exercism: no practice/ or exercises/practice/ under {root}")


def listing(root: Path) -> list[tuple[str, int]]:
    """(slug, difficulty) in the listing's order: exercises.json, else the track's config."""
    for name, key in (("exercises.json", "practice"), ("config.json", "exercises")):
        path = root / name
        if not path.is_file():
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        entries = data.get(key, [])
        entries = entries.get("practice", []) if isinstance(entries, dict) else entries
        return [(e["slug"], int(e.get("difficulty", 0))) for e in entries if "slug" in e]
    return []


def catalogue(root: Path) -> list[Exercise]:
    """Every exercise present, easiest first (stable: the listing's order breaks ties)."""
    practice = practice_dir(root)
    order = listing(root) or [(p.name, 0) for p in sorted(practice.iterdir())]
    found = []
    for slug, difficulty in order:
        folder = practice / slug
        config = folder / ".meta" / "config.json"
        if not config.is_file():
            continue  # deprecated or left out of this copy
        files = json.loads(config.read_text(encoding="utf-8")).get("files", {})
        found.append(
            Exercise(slug, difficulty, folder, list(files["solution"]), list(files["test"]))
        )
    return sorted(found, key=lambda e: e.difficulty)


def select(exercises: list[Exercise], slugs: str | None, limit: int | None) -> list[Exercise]:
    if slugs:
        by_slug = {e.slug: e for e in exercises}
        wanted = [s.strip() for s in slugs.split(",") if s.strip()]
        unknown = [s for s in wanted if s not in by_slug]
        if unknown:
            raise SystemExit(f"exercism: unknown exercise(s): {', '.join(unknown)}")
        return [by_slug[s] for s in wanted]
    return exercises[:limit] if limit else exercises


def make_split(slugs: Iterable[str]) -> dict[str, list[str]]:
    """The fixed-seed split: shuffle the sorted slugs with seed 41, the first 50 are dev."""
    order = sorted(set(slugs))
    random.Random(SPLIT_SEED).shuffle(order)
    return {"dev": sorted(order[:DEV_SIZE]), "held-out": sorted(order[DEV_SIZE:])}


def load_split(path: Path, exercises: list[Exercise]) -> dict[str, list[str]]:
    """The split in `path`, written there first if it is not yet; an exercise set other than
    the one it split is a one-line error (a silently different split would mix the sets)."""
    slugs = {e.slug for e in exercises}
    if not path.is_file():
        split = make_split(slugs)
        doc = {"seed": SPLIT_SEED, "dev_size": DEV_SIZE, **split}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        print(f"exercism: wrote the split of {len(slugs)} exercises to {path}", file=sys.stderr)
        return split
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        split = {name: [str(s) for s in doc[name]] for name in SPLITS}
    except (ValueError, KeyError, TypeError):
        raise SystemExit(f"exercism: {path} is not a split (dev and held-out lists)") from None
    listed = set(split["dev"]) | set(split["held-out"])
    if listed != slugs:
        raise SystemExit(
            f"exercism: {path} splits other exercises ({len(listed - slugs)} of its slugs"
            f" missing here, {len(slugs - listed)} here not in it); --split-file NEW splits these"
        )
    return split


def pick(args: argparse.Namespace, exercises: list[Exercise]) -> list[Exercise]:
    """--split's part (easiest first), else --slugs, then --limit."""
    if args.split:
        part = set(load_split(args.split_file, exercises)[args.split])
        return select([e for e in exercises if e.slug in part], None, args.limit)
    return select(exercises, args.slugs, args.limit)


def instructions(ex: Exercise) -> str:
    """The prompt: the exercise's own text, as aider's harness assembles it."""
    docs = ex.folder / ".docs"
    parts = [
        (docs / name).read_text(encoding="utf-8")
        for name in ("introduction.md", "instructions.md", "instructions.append.md")
        if (docs / name).is_file()
    ]
    return "".join(parts) + ADDENDUM.format(files=" ".join(ex.solution))


# --------------------------------------------------------------- repository


def prepare(ex: Exercise, repo: Path) -> Path:
    """A fresh git repository with everything but `.meta/` (the stub, tests, `.docs`)."""
    shutil.copytree(ex.folder, repo, ignore=shutil.ignore_patterns(".meta", "__pycache__"))
    for path in [repo, *repo.rglob("*")]:  # the data may be read-only
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    run_tasks.git_init(repo)
    return repo


def restore_tests(ex: Exercise, repo: Path) -> None:
    for name in ex.tests:
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        shutil.copyfile(ex.folder / name, target)


def clean(output: str, repo: Path) -> str:
    """Test output without timings and with the temp path cut (as aider's harness does)."""
    output = re.sub(r"^Ran (\d+) tests? in [\d.]+s$", r"Ran \1 tests", output, flags=re.M)
    output = re.sub(r"^={4,}$", "====", output, flags=re.M)
    output = re.sub(r"^-{4,}$", "----", output, flags=re.M)
    return output.replace(str(repo) + os.sep, "").replace(str(repo), ".")


def run_tests(ex: Exercise, repo: Path, timeout: float) -> tuple[bool, str]:
    """Restore the tests, run them with unittest; (passed, cleaned output)."""
    restore_tests(ex, repo)
    modules = [Path(t).with_suffix("").as_posix().replace("/", ".") for t in ex.tests]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    log = repo.parent / "tests"
    rc, timed_out = ag.run_group(
        [sys.executable, "-m", "unittest", *modules], repo, env, timeout, log
    )
    text = log.with_suffix(".err").read_text(encoding="utf-8", errors="replace")
    text += log.with_suffix(".out").read_text(encoding="utf-8", errors="replace")
    for suffix in (".out", ".err"):
        log.with_suffix(suffix).unlink(missing_ok=True)
    if timed_out:
        return False, f"The tests timed out after {timeout:.0f} s."
    return rc == 0, clean(text, repo)


def damaged(ex: Exercise, repo: Path) -> set[str]:
    """Tracked files other than the stub that differ from the commit or are gone."""
    run = subprocess.run(
        ["git", "diff", "--name-only", "HEAD"], cwd=repo, capture_output=True, text=True
    )
    return {name for name in run.stdout.splitlines() if name and name not in ex.solution}


# ------------------------------------------------------------------ running


def attempt(
    agent: str, ex: Exercise, setup: ag.Setup, work: Path, tries: int, test_timeout: float
) -> dict[str, Any]:
    """Up to `tries` tries of `agent` on `ex`, aider's way; the result row."""
    folder = work / f"{ex.slug}.{agent}"
    repo = prepare(ex, folder / ex.slug)
    prompt = instructions(ex)
    runs: list[dict[str, Any]] = []
    hurt: set[str] = set()
    outcomes: list[bool] = []
    for n in range(tries):
        result = ag.run(agent, prompt, repo, folder / "home", setup, ex.solution, again=n > 0)
        hurt |= damaged(ex, repo)
        ok, output = run_tests(ex, repo, test_timeout)
        outcomes.append(ok)
        runs.append(ag.as_row(**vars(result), tests_ok=ok))
        if ok:
            break
        tail = "\n".join(output.strip().splitlines()[-TAIL_LINES:])
        prompt = tail + RETRY.format(files=" ".join(ex.solution))
    return ag.as_row(
        exercise=ex.slug,
        difficulty=ex.difficulty,
        agent=agent,
        pass1=outcomes[0],
        pass2=any(outcomes[:2]),
        tries=len(runs),
        secs=sum(r["secs"] for r in runs),
        llm_calls=sum(r["llm_calls"] for r in runs),
        prompt_tokens=sum(r["prompt_tokens"] for r in runs),
        output_tokens=sum(r["output_tokens"] for r in runs),
        timed_out=sum(r["timed_out"] for r in runs),
        damaged=len(hurt),
        damaged_files=sorted(hurt),
        timing=sum_timing(runs),
        runs=runs,
    )


def sum_timing(runs: list[dict[str, Any]]) -> dict[str, int] | None:
    """The tries' figures of where rift's time went, summed; None when a try has none
    (aider reports no such figures, so its columns stay blank)."""
    if not runs or any(r.get("timing") is None for r in runs):
        return None
    return {key: sum(r["timing"][key] for r in runs) for key in ag.TIMING}


def timing_total(
    key: str, scale: float = 1, fmt: str = "{:,.0f}"
) -> Callable[[list[dict[str, Any]]], str]:
    """A summary cell of one timing figure; "-" for an agent without them (aider)."""

    def cell(rows: list[dict[str, Any]]) -> str:
        if not rows or any(r.get("timing") is None for r in rows):
            return "-"
        return fmt.format(sum(r["timing"][key] for r in rows) / scale)

    return cell


# -------------------------------------------------------------------- table

ROWS: list[side_table.Row] = [
    ("pass@1", side_table.passed("pass1")),
    ("pass@2", side_table.passed("pass2")),
    ("files damaged", side_table.total("damaged")),
    ("median wall s/exercise", side_table.median("secs")),
    ("total wall s", side_table.total("secs", "{:,.1f}")),
    ("model requests", side_table.total("llm_calls")),
    ("requests/exercise", side_table.per_task("llm_calls")),
    ("prompt tokens", side_table.total("prompt_tokens")),
    ("tries timed out", side_table.total("timed_out")),
    ("prefill s", timing_total("prefill_ms", 1000, "{:,.1f}")),
    ("prefill tokens", timing_total("prefill_tokens")),
    ("cached prompt tokens", timing_total("cached_tokens")),
    ("decode s", timing_total("decode_ms", 1000, "{:,.1f}")),
    ("decode tokens", timing_total("decode_tokens")),
    ("tool s", timing_total("tool_ms", 1000, "{:,.1f}")),
]


def cell(row: dict[str, Any]) -> str:
    verdict = "pass@1" if row["pass1"] else "pass@2" if row["pass2"] else "FAIL"
    extra = (" T" * bool(row["timed_out"])) + (f" D{row['damaged']}" * bool(row["damaged"]))
    return f"{verdict:<6} {row['secs']:6.1f}s {row['llm_calls']:>2}r{extra}"


def render(header: list[str], agents: list[str], rows: list[dict[str, Any]]) -> str:
    by_agent = {a: [r for r in rows if r["agent"] == a] for a in agents}
    lines = [*header, "", side_table.render(agents, by_agent, ROWS), ""]
    lines.append("per exercise (verdict, agent wall s, model requests; T timeout, D damaged):")
    for slug in dict.fromkeys(r["exercise"] for r in rows):
        cells = {r["agent"]: cell(r) for r in rows if r["exercise"] == slug}
        difficulty = next(r["difficulty"] for r in rows if r["exercise"] == slug)
        line = f"  {slug + f' ({difficulty})':<26}"
        line += "  ".join(f"{cells.get(a, '-'):<24}" for a in agents)
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Exercism Python, aider's method, side by side.")
    p.add_argument("--exercises", type=Path, required=True, help="exercises folder (a path)")
    p.add_argument("--slugs", help="comma-separated exercise slugs (default: all)")
    p.add_argument("--limit", type=int, help="the N easiest exercises")
    p.add_argument("--split", choices=SPLITS, help="dev (tune on) or held-out (report only)")
    p.add_argument("--split-file", type=Path, default=SPLIT_FILE, help="where the split is")
    p.add_argument("--test-timeout", type=float, default=TEST_TIMEOUT, help="seconds for tests")
    p.add_argument("--tries", type=int, default=2, help="tries per exercise (aider: 2)")
    p.add_argument("--list", action="store_true", help="print the picked exercises and exit")
    side_run.add_common_args(p, timeout=300)
    args = p.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        p.error("--limit must be at least 1")
    if args.split and args.slugs:
        p.error("--split and --slugs pick exercises two ways; give one")
    return args


def main(argv: list[str] | None = None) -> int:
    raw = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(raw)
    exercises = pick(args, catalogue(args.exercises.resolve()))
    if args.list:
        print("\n".join(f"{e.slug} {e.difficulty}" for e in exercises))
        return 0
    side_run.check_args(args)
    session = side_run.Session(args, Path(__file__).resolve(), raw)
    head = [
        "Exercism Python practice exercises, aider's benchmark method, side by side",
        *session.header(),
    ]
    way = f"split {args.split}" if args.split else "--slugs" if args.slugs else "easiest first"
    how = (
        f" picked from {args.exercises.name} ({way});"
        f" per-try timeout {args.timeout:.0f} s, {args.tries} tries, order alternating"
    )

    def run_one(agent: str, ex: Exercise) -> dict[str, Any]:
        row = attempt(agent, ex, session.setup, session.work, args.tries, args.test_timeout)
        if not args.keep:
            shutil.rmtree(session.work / f"{ex.slug}.{agent}", ignore_errors=True)
        return row

    def table(done: int, rows: list[dict[str, Any]]) -> str:
        lines = [*head, f"exercises: the first {done} of {len(exercises)}{how}"]
        return render([*lines, side_run.load_line(session)], args.agents, rows)

    text = side_run.run_all(
        session, exercises, run_one, table, item_id=lambda e: e.slug, key="exercise"
    )
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

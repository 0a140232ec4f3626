"""rift beside aider on the same GGUF, same tasks, same run: the task tiers, three ways.

    python bench/tasks/aider_side_by_side.py [--tier tiny|full] [--tasks a,b]
        [--agents rift-embedded,rift-server,aider] [--gguf FILE.gguf]
        [--llama-server PATH] [--aider /tmp/aider-venv/bin/aider]
        [--until 20:15] [--timeout 600] [--save bench/results/tiny_side_by_side.txt]

Why a second harness: the fair yardstick for rift is a popular agent driving
the very same weights on the very same machine. The agents (tasks/agents.py,
shared with bench/exercism.py): rift-embedded (`rift -m embedded`, in-process),
rift-server (rift against llama.cpp's own llama-server on the GGUF) and aider
(`--edit-format whole`, every project file added to its chat, against that
server). Server agents' requests are counted off the wire by proxy.py.

Each task is run by every agent, one after the other, the order alternating
per task (tasks/agents.py: orders), one model process at a time: llama-server
runs only while a server agent works. All are scored by run_tasks' own
verify.sh and damage check; aider's own files (`.aider*`) are removed first,
as intact.py ignores rift's `.rift`. With --until, no new task starts once the
mean time a task took would carry past that UTC time. The table (and a
.jsonl beside it) is rewritten after every task. The run is re-executed in its
own network namespace (tasks/offline.py) unless --online or --server-url.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import agents as ag
import run_tasks
import side_run
import side_table

ROWS: list[side_table.Row] = [
    ("tasks passed", side_table.passed("ok")),
    ("files damaged", side_table.total("damaged")),
    ("median wall s/task", side_table.median("secs")),
    ("total wall s", side_table.total("secs", "{:,.1f}")),
    ("model requests", side_table.total("llm_calls")),
    ("requests/task", side_table.per_task("llm_calls")),
    ("prompt tokens", side_table.total("prompt_tokens")),
    ("timed out", side_table.total("timed_out")),
]


def project_files(name: str, tier: str) -> list[str]:
    """The task's project files (what aider gets in its chat): everything but the check."""
    folder = run_tasks.fixtures(tier) / name
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.name not in run_tasks.TASK_FILES and "__pycache__" not in p.parts
    )


def run_agent_task(
    agent: str, name: str, tier: str, setup: ag.Setup, verbose: bool = False, lang: str = "en"
) -> dict[str, Any]:
    """One task by one agent, scored exactly as run_tasks scores rift alone."""
    prompt = run_tasks.read_prompt(name, tier, lang)
    folder = Path(tempfile.mkdtemp(prefix=f"task-{name}-", dir=setup.work))
    try:
        repo = run_tasks.copy_fixture(name, folder / "repo", tier=tier, git=True)
        result = ag.run(agent, prompt, repo, folder / "home", setup, project_files(name, tier))
        ok, output = run_tasks.verify(name, repo, tier)
        damaged = run_tasks.damaged_files(repo)
        if verbose:
            log = (folder / "home" / "try1.err").read_text(encoding="utf-8", errors="replace")
            print(
                f"--- {name} {agent} ---\n{log[-4000:]}\n--- verify ---\n{output}", file=sys.stderr
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    row = run_tasks.result_row(
        name, ok, damaged, result.secs, result.totals(), result.rc, result.timed_out
    )
    return {"agent": agent, **row, "lang": lang}


def cell(row: dict[str, Any]) -> str:
    extra = (" T" * row["timed_out"]) + (f" D{row['damaged']}" * bool(row["damaged"]))
    return f"{'pass' if row['ok'] else 'FAIL'} {row['secs']:6.1f}s {row['llm_calls']:>2}r{extra}"


def render(header: list[str], agents: list[str], rows: list[dict[str, Any]]) -> str:
    by_agent = {a: [r for r in rows if r["agent"] == a] for a in agents}
    lines = [*header, "", side_table.render(agents, by_agent, ROWS), ""]
    lines.append("per task (verdict, wall s, model requests; T timeout, D damaged files):")
    for task in dict.fromkeys(r["task"] for r in rows):
        cells = {r["agent"]: cell(r) for r in rows if r["task"] == task}
        line = f"  {task:<26}" + "  ".join(f"{cells.get(a, '-'):<20}" for a in agents)
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="rift and aider side by side on the task tiers.")
    p.add_argument("--tier", choices=sorted(run_tasks.TIERS), default="tiny")
    p.add_argument("--tasks", help="comma-separated task names (default: all, sorted)")
    p.add_argument("--lang", choices=run_tasks.LANGS, default="en", help="the prompts' language")
    p.add_argument("--verbose", action="store_true", help="print every agent's output")
    side_run.add_common_args(p, timeout=600)
    args = p.parse_args(argv)
    side_run.check_args(args)
    return args


def main(argv: list[str] | None = None) -> int:
    raw = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(raw)
    rift_args = run_tasks.parse_args(
        ["--embedded", "--tier", args.tier, "--lang", args.lang]
        + (["--tasks", args.tasks] if args.tasks else [])
    )
    tasks = run_tasks.select_tasks(rift_args)
    session = side_run.Session(args, Path(__file__).resolve(), raw)
    head = [
        f"{args.tier} tier ({len(tasks)} tasks, prompts in {args.lang}), side by side",
        *session.header(),
    ]

    def run_one(agent: str, name: str) -> dict[str, Any]:
        return run_agent_task(agent, name, args.tier, session.setup, args.verbose, args.lang)

    def table(done: int, rows: list[dict[str, Any]]) -> str:
        how = (
            f"tasks: the first {done} of {len(tasks)} in sorted order (per-task timeout"
            f" {args.timeout:.0f} s, order alternating per task)"
        )
        return render([*head, how, side_run.load_line(session)], args.agents, rows)

    print(side_run.run_all(session, tasks, run_one, table), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

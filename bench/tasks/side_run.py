"""The run loop both side-by-side benchmarks share: flags, server, order, time box, output.

Why: the task tiers (aider_side_by_side.py) and Exercism (bench/exercism.py)
differ only in what one item is and how it is scored. Everything that makes
the comparison fair lives here once: the same flags, the offline namespace,
one model process at a time (llama-server up only while a server agent works),
the agent order alternating per item, --until, and the table and .jsonl
rewritten after every item so a run cut short still leaves its results.
With --resume the .jsonl is kept: (agent, item) pairs already in it are
skipped and new rows appended, so a run too long for one sitting goes in slices
(`--until` ends each slice; the same command line, run again, carries on).
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
import agents as ag
import offline
import run_tasks
from llama_server import ALIAS, DEFAULT_BINARY, N_CTX, THREADS, LlamaServer, stop_on_signals
from llama_server import version as server_version

DEFAULT_GGUF = Path.home() / ".cache/rift/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
Item = TypeVar("Item")


def add_common_args(p: argparse.ArgumentParser, timeout: float) -> None:
    p.add_argument("--agents", default=",".join(ag.AGENTS), help="comma-separated agents")
    p.add_argument("--timeout", type=float, default=timeout, help="seconds per run, each agent")
    p.add_argument("--until", help="HH:MM UTC: start no item that would end later")
    p.add_argument("--save", type=Path, help="write the table here, and FILE.jsonl beside it")
    p.add_argument("--gguf", type=Path, default=DEFAULT_GGUF, help="the GGUF for every agent")
    p.add_argument("--llama-server", type=Path, default=DEFAULT_BINARY, help="llama-server")
    p.add_argument("--server-arg", action="append", default=[], help="extra llama-server arg")
    p.add_argument("--threads", type=int, default=THREADS, help="llama-server threads")
    p.add_argument("--server-url", help="use this OpenAI-compatible server; start none")
    p.add_argument("--model", default=ALIAS, help="model name the server agents ask for")
    p.add_argument("--aider", default="/tmp/aider-venv/bin/aider", help="aider command")
    p.add_argument("--rift", help="command that starts rift (default: python -m rift)")
    p.add_argument("--online", action="store_true", help="no network namespace")
    p.add_argument("--keep", action="store_true", help="keep the temp repositories and logs")
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep --save's .jsonl: skip the (agent, item) pairs in it, append the rest",
    )


def check_args(args: argparse.Namespace) -> None:
    """Turn --agents into a list and fail early (one line) on what cannot run."""
    args.agents = ag.parse_agents(args.agents)
    if args.resume and not args.save:
        raise SystemExit("bench: --resume needs --save (its .jsonl holds the runs done)")
    if "aider" in args.agents and shutil.which(args.aider) is None:
        raise SystemExit(f"bench: no aider at {args.aider} (pip install aider-chat==0.86.2)")
    if not args.gguf.is_file() and (args.server_url is None or "rift-embedded" in args.agents):
        raise SystemExit(f"bench: no GGUF at {args.gguf} (--gguf)")
    servers = any(ag.needs_server(a) for a in args.agents)
    if servers and not args.server_url and not args.llama_server.is_file():
        raise SystemExit(
            f"bench: no llama-server at {args.llama_server}"
            " (scripts/build_llama_server.sh builds it; or --llama-server, --server-url)"
        )


def deadline(until: str | None) -> float | None:
    """--until as a time.time() value: the next such time, UTC (00:20 typed at 23:00 is
    tomorrow's, not a deadline already past)."""
    if not until:
        return None
    hour, minute = (int(x) for x in until.split(":"))
    now = datetime.datetime.now(datetime.UTC)
    at = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    return (at if at > now else at + datetime.timedelta(days=1)).timestamp()


class Session:
    """One benchmark run: the network, the shared agent setup, the server, the output."""

    def __init__(self, args: argparse.Namespace, script: Path, raw: list[str]) -> None:
        self.args = args
        if args.online or args.server_url:
            self.network = "not isolated (" + ("--online" if args.online else "--server-url") + ")"
        else:
            self.network = offline.isolate([str(script), *raw])
        stop_on_signals()
        self.work = Path(tempfile.mkdtemp(prefix="rift-side-by-side-"))
        self.setup = ag.Setup(
            rift=run_tasks.rift_command(args.rift),
            gguf=args.gguf,
            work=self.work,
            timeout=args.timeout,
            aider=args.aider,
            server_url=args.server_url or "",
            model=args.model,
        )
        self.setup.aider_flags = ag.aider_settings(self.work)
        self.server = LlamaServer(
            args.llama_server,
            args.gguf,
            self.work / "llama-server.log",
            threads=args.threads,
            extra=args.server_arg,
        )
        self.started = datetime.datetime.now(datetime.UTC)
        self.load = ag.load_average()

    def header(self) -> list[str]:
        """The lines every table starts with: when, what, where, how."""
        args = self.args
        server = args.server_url or f"llama-server {server_version(args.llama_server)} (--jinja)"
        return [
            f"started {self.started:%Y-%m-%d %H:%M} UTC; rift at commit"
            f" {ag.git_commit(run_tasks.REPO)}; Python {sys.version.split()[0]}",
            f"hardware: {ag.hardware()}",
            f"model: {args.gguf.name} for every agent; n_ctx {N_CTX}, temperature"
            f" {ag.TEMPERATURE}, {args.threads} threads, one model process at a time",
            *(f"  {ag.describe(a, self.setup, server)}" for a in args.agents),
            f"network: {self.network}",
        ]

    def switch_to(self, agent: str) -> None:
        """llama-server up for a server agent, down for rift-embedded (one model at a time)."""
        if self.args.server_url:
            return
        if ag.needs_server(agent) and not self.server.running():
            self.setup.server_url = self.server.start().url
        elif not ag.needs_server(agent) and self.server.running():
            self.server.stop()
            self.setup.server_url = ""

    def close(self) -> None:
        self.server.stop()
        if self.args.keep:
            print(f"bench: kept {self.work}", file=sys.stderr)
        else:
            shutil.rmtree(self.work, ignore_errors=True)


def done_rows(jsonl: Path, key: str) -> list[dict[str, Any]]:
    """The rows an earlier slice wrote (each with "agent" and `key`); a line cut off by a
    killed run is dropped, so that pair simply runs again."""
    if not jsonl.is_file():
        return []
    rows = []
    for line in jsonl.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and "agent" in row and key in row:
            rows.append(row)
    return rows


def run_all(
    session: Session,
    items: Sequence[Item],
    run_one: Callable[[str, Item], dict[str, Any]],
    render: Callable[[int, list[dict[str, Any]]], str],
    item_id: Callable[[Item], str] = str,
    key: str = "task",
) -> str:
    """Every item by every agent (order alternating), within --until; the final table.

    `render(done, rows)` makes the table with `done` items begun; it is saved after every
    run, so a run killed halfway still leaves the table of what it finished. A row names
    its item by `row[key] == item_id(item)`; with --resume the pairs already in the .jsonl
    are skipped and their rows kept in the table."""
    args = session.args
    stop_at = deadline(args.until)
    jsonl = args.save.with_suffix(".jsonl") if args.save else None
    rows: list[dict[str, Any]] = []
    if jsonl and args.resume:
        kept = done_rows(jsonl, key)  # all kept; the table shows this run's items
        jsonl.write_text("".join(json.dumps(r) + "\n" for r in kept), encoding="utf-8")
        wanted = {item_id(item) for item in items}
        rows = [r for r in kept if r[key] in wanted]
    elif jsonl:
        jsonl.write_text("", encoding="utf-8")
    done = {(r["agent"], r[key]) for r in rows}
    spent: list[float] = []
    text = ""
    try:
        for index, item in enumerate(items):
            todo = [a for a in ag.orders(args.agents, index) if (a, item_id(item)) not in done]
            if not todo:
                continue
            if stop_at and spent and time.time() + sum(spent) / len(spent) > stop_at:
                break
            began = time.perf_counter()
            for agent in todo:
                session.switch_to(agent)
                row = run_one(agent, item)
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
                if jsonl:
                    with jsonl.open("a", encoding="utf-8") as handle:
                        handle.write(json.dumps(row) + "\n")
                text = render(index + 1, rows)  # after every run: a cut-short run keeps it
                if args.save:
                    args.save.write_text(text, encoding="utf-8")
            spent.append(time.perf_counter() - began)
    finally:
        session.close()
    if not text and rows:  # resumed with nothing left to run: the table of what was done
        text = render(len(items), rows)
        if args.save:
            args.save.write_text(text, encoding="utf-8")
    return text


def load_line(session: Session) -> str:
    return f"load average at start: {session.load}; now: {ag.load_average()}"

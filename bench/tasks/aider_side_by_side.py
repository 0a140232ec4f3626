"""rift's embedded model beside aider on the same GGUF, same tasks, same run.

    XDG_CACHE_HOME=DIR python bench/tasks/aider_side_by_side.py --gguf FILE.gguf
        [--aider /tmp/aider-venv/bin/aider] [--tier tiny] [--tasks a,b] [--until 20:15]
        [--timeout 600] [--save bench/results/tiny_side_by_side.txt]

Why a second harness: issue 22 asks whether the embedded model is worth
running, and the fair yardstick is a popular agent driving the very same
weights on the very same machine. aider (its `whole` edit format) talks to
`llama_cpp.server` on FILE.gguf, started here with rift's embedded settings
(n_ctx 8192, temperature 0.2, at most 2,048 output tokens, 2 threads), through
run_tasks' recording proxy so its model requests are counted off the wire.
rift runs exactly as `run_tasks.py --embedded` runs it (XDG_CACHE_HOME must
hold the assembled model, or rift assembles it).

Each task is run by both, one after the other, the order alternating per
task, so both see the same machine state. Both are scored by run_tasks' own
verify.sh and damage check; only the files aider keeps for itself (`.aider*`)
are removed first, as intact.py ignores rift's `.rift`. With --until, no new
task starts once the mean time a task pair took would carry past that UTC
time, so the tasks run are the first N in order. The table is rewritten
after every task pair (a run cut short still leaves its partial table).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_tasks
from proxy import RecordingProxy

ALIAS = "qwen2.5-coder-1.5b-instruct"
N_CTX = 8192  # rift's EMBEDDED_NUM_CTX (models/registry.py)
TEMPERATURE = 0.2  # rift's DEFAULT_TEMPERATURE (config.py)
MAX_OUTPUT = 2048  # rift's embedded MAX_OUTPUT_TOKENS (models/embedded.py)
THREADS = 2
SERVER_START_TIMEOUT = 180


# ------------------------------------------------------------------ server


def start_server(
    gguf: Path, port: int, log: Path, python: str = sys.executable
) -> subprocess.Popen[bytes]:
    """llama_cpp.server on `gguf` with rift's embedded settings; returns once it answers.

    `python` is an interpreter with `llama-cpp-python[server]`: rift's own venv runs
    cyllama, so the server usually lives in a venv of its own."""
    cmd = [
        python,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--model_alias",
        ALIAS,
        "--n_ctx",
        str(N_CTX),
        "--n_threads",
        str(THREADS),
        "--n_threads_batch",
        str(THREADS),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"aider_side_by_side: llama_cpp.server exited; see {log}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2):
                return proc
        except OSError:
            time.sleep(1)
    os.killpg(proc.pid, signal.SIGKILL)
    raise SystemExit(f"aider_side_by_side: llama_cpp.server did not answer; see {log}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def runtime_name() -> str:
    """The llama.cpp binding rift's embedded model runs on here, as the table names it."""
    from rift.models.embedded_backends import installed

    names = {"cyllama": "cyllama", "llama_cpp": "llama-cpp-python"}
    return names.get(installed() or "", "no runtime")


# ------------------------------------------------------------------- aider


def aider_settings(folder: Path) -> list[str]:
    """aider's flags for our model: rift's temperature and output cap, the context size."""
    settings = folder / "model-settings.yml"
    settings.write_text(
        f"- name: openai/{ALIAS}\n"
        "  edit_format: whole\n"
        f"  use_temperature: {TEMPERATURE}\n"
        "  extra_params:\n"
        f"    max_tokens: {MAX_OUTPUT}\n",
        encoding="utf-8",
    )
    metadata = folder / "model-metadata.json"
    entry = {
        "max_input_tokens": N_CTX,
        "max_output_tokens": MAX_OUTPUT,
        "max_tokens": MAX_OUTPUT,
        "input_cost_per_token": 0,
        "output_cost_per_token": 0,
        "litellm_provider": "openai",
        "mode": "chat",
    }
    metadata.write_text(json.dumps({f"openai/{ALIAS}": entry}), encoding="utf-8")
    return ["--model-settings-file", str(settings), "--model-metadata-file", str(metadata)]


def task_file(name: str, tier: str) -> str:
    """The one project file of a tiny task (everything but prompt.txt and verify.sh)."""
    files = [
        p.name
        for p in (run_tasks.fixtures(tier) / name).iterdir()
        if p.is_file() and p.name not in run_tasks.TASK_FILES
    ]
    if len(files) != 1:
        raise SystemExit(f"aider_side_by_side: {name} is not a single-file task: {files}")
    return files[0]


def run_aider_task(
    name: str, args: argparse.Namespace, upstream: str, settings: list[str]
) -> dict[str, Any]:
    """One task by aider, scored exactly as run_tasks scores rift."""
    prompt = (run_tasks.fixtures(args.tier) / name / "prompt.txt").read_text("utf-8").strip()
    work = Path(tempfile.mkdtemp(prefix=f"aider-task-{name}-"))
    try:
        repo = run_tasks.copy_fixture(name, work / "repo", tier=args.tier, git=True)
        home = work / "home"
        home.mkdir()
        env = dict(os.environ, HOME=str(home))
        with RecordingProxy(upstream, timeout=args.timeout) as proxy:
            cmd = [
                args.aider,
                *("--model", f"openai/{ALIAS}", "--openai-api-base", proxy.client_url),
                *("--openai-api-key", "x", "--edit-format", "whole", *settings),
                *("--yes-always", "--no-git", "--no-stream", "--map-tokens", "0"),
                *("--chat-history-file", str(work / "chat.md")),
                *("--input-history-file", str(work / "input.history")),
                *("--no-restore-chat-history", "--analytics-disable", "--no-check-update"),
                *("--no-show-model-warnings", "--no-gitignore", "--no-pretty"),
                *("--no-fancy-input", "--no-show-release-notes", "--no-detect-urls"),
                *("--message", prompt, task_file(name, args.tier)),
            ]
            started = time.perf_counter()
            rc, timed_out = run_tasks.run_rift(cmd, repo, env, args.timeout)
            secs = time.perf_counter() - started
            totals = proxy.totals()
        for own in repo.glob(".aider*"):  # aider's bookkeeping, like rift's .rift
            if own.is_dir():
                shutil.rmtree(own)
            else:
                own.unlink()
        ok, output = run_tasks.verify(name, repo, args.tier)
        damaged = run_tasks.damaged_files(repo)
        if args.verbose:
            log = (work / "rift.out").read_text(encoding="utf-8", errors="replace")
            print(f"--- {name}: aider output ---\n{log[-4000:]}", file=sys.stderr)
            print(f"--- {name}: verify ---\n{output}", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return run_tasks.result_row(name, ok, damaged, secs, totals, rc, timed_out)


# ------------------------------------------------------------------- table


def column(results: list[dict[str, Any]]) -> list[str]:
    n = len(results)
    secs = [r["secs"] for r in results]
    return [
        f"{sum(r['ok'] for r in results)}/{n}",
        str(sum(r["damaged"] for r in results)),
        f"{statistics.median(secs):.1f}" if secs else "-",
        f"{sum(secs):.1f}",
        str(sum(r["llm_calls"] for r in results)),
        str(sum(r["timed_out"] for r in results)),
    ]


def table(
    pairs: list[tuple[dict[str, Any], dict[str, Any]]],
    header: list[str],
    loads: tuple[str, str],
) -> str:
    rift = [p[0] for p in pairs]
    aider = [p[1] for p in pairs]
    labels = [
        "tasks passed",
        "files damaged",
        "median wall s/task",
        "total wall s",
        "model requests",
        "timed out",
    ]
    lines = [*header, f"load average at start: {loads[0]}; at end: {loads[1]}", ""]
    lines.append(f"{'':<22}{'rift (embedded)':>18}{'aider (whole)':>18}")
    for label, left, right in zip(labels, column(rift), column(aider), strict=True):
        lines.append(f"{label:<22}{left:>18}{right:>18}")
    lines += ["", "per task (pass, damaged files, wall s, model requests):"]
    for r, a in pairs:
        cells = [
            f"{'pass' if x['ok'] else 'FAIL'} {x['damaged']} {x['secs']:7.1f}s {x['llm_calls']:>3}"
            + (" timeout" if x["timed_out"] else "")
            for x in (r, a)
        ]
        lines.append(f"  {r['task']:<26} rift {cells[0]:<26} aider {cells[1]}")
    return "\n".join(lines) + "\n"


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# -------------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="rift (embedded) beside aider, same GGUF.")
    parser.add_argument("--gguf", type=Path, required=True, help="the embedded model's GGUF")
    parser.add_argument("--aider", default="/tmp/aider-venv/bin/aider", help="aider command")
    parser.add_argument("--port", type=int, default=8765, help="llama_cpp.server port")
    parser.add_argument(
        "--server-python",
        default=sys.executable,
        help="python with llama-cpp-python[server] (default: this one)",
    )
    parser.add_argument("--tier", choices=sorted(run_tasks.TIERS), default="tiny")
    parser.add_argument("--tasks", help="comma-separated task names (default: all, sorted)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per task, each")
    parser.add_argument("--until", help="HH:MM UTC: start no task pair that would end later")
    parser.add_argument("--save", type=Path, help="write the table here too")
    parser.add_argument("--out", type=Path, help="append one JSON line per run here")
    parser.add_argument("--rift", help="command that starts rift (default: python -m rift)")
    parser.add_argument("--verbose", action="store_true", help="print both tools' output")
    return parser.parse_args(argv)


def deadline(until: str | None) -> float | None:
    """--until as a time.time() value (today, UTC)."""
    if not until:
        return None
    hour, minute = (int(x) for x in until.split(":"))
    now = datetime.datetime.now(datetime.UTC)
    return now.replace(hour=hour, minute=minute, second=0, microsecond=0).timestamp()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if shutil.which(args.aider) is None:
        raise SystemExit(f"aider_side_by_side: no aider at {args.aider}")
    rift_args = run_tasks.parse_args(
        ["--embedded", "--tier", args.tier, "--timeout", str(args.timeout)]
        + (["--tasks", args.tasks] if args.tasks else [])
        + (["--verbose"] if args.verbose else [])
    )
    tasks = run_tasks.select_tasks(rift_args)
    rift = run_tasks.rift_command(args.rift)
    stop_at = deadline(args.until)
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    start_load = load_average()
    work = Path(tempfile.mkdtemp(prefix="aider-side-by-side-"))
    server = start_server(args.gguf, args.port, work / "llama_cpp.server.log", args.server_python)
    settings = aider_settings(work)
    upstream = f"http://127.0.0.1:{args.port}/v1"
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    text = ""
    try:
        for index, name in enumerate(tasks):
            spent = [p[0]["secs"] + p[1]["secs"] for p in pairs]
            if stop_at and spent and time.time() + statistics.mean(spent) > stop_at:
                break
            runs: dict[str, dict[str, Any]] = {}
            for who in ("rift", "aider") if index % 2 == 0 else ("aider", "rift"):
                if who == "rift":
                    runs[who] = run_tasks.run_task(name, rift_args, rift, "")
                else:
                    runs[who] = run_aider_task(name, args, upstream, settings)
                line = json.dumps({"tool": who, **runs[who]})
                print(line, file=sys.stderr, flush=True)
                if args.out:
                    with args.out.open("a", encoding="utf-8") as handle:
                        handle.write(line + "\n")
            pairs.append((runs["rift"], runs["aider"]))
            header = [
                f"tiny-tier side by side, started {started}, {os.cpu_count()} CPU cores",
                f"model: {args.gguf.name} for both; n_ctx {N_CTX}, temperature {TEMPERATURE},"
                f" max {MAX_OUTPUT} output tokens, {THREADS} threads",
                f"rift: run_tasks.py --embedded (in-process {runtime_name()});"
                " aider 'whole' format -> llama_cpp.server",
                f"tasks: the first {len(pairs)} of {len(tasks)} in sorted order"
                f" (per-task timeout {args.timeout:.0f} s, order alternating per task)",
            ]
            text = table(pairs, header, (start_load, load_average()))
            if args.save:
                args.save.write_text(text, encoding="utf-8")
    finally:
        stop(server)
        shutil.rmtree(work, ignore_errors=True)
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

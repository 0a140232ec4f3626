"""The two-server pool benchmark (issue 46): `rift swarm --attempts 4` against a pool
of two llama-servers, and against one of them, in the same run; the ratio of wall times.

Both servers run the 0.5B GGUF with `-np 2` (two slots each) and the same threads.
The one-server run gets `--parallel 2` (its two slots: what a user would give it);
the pool run gets nothing: the pool reports four slots (two per server) and keeps
each server within its own two. The goal (docs/pool.md): pool ≤ 0.6× one server.
The figures also check the slot limit: each server's most concurrent requests, read
from its `/slots` while the race runs, never above 2.

The 0.5B model's attempts differ in length from run to run (one race may make 14
requests, the next 9), so wall time alone compares unequal work. The servers' own
timing lines (`print_timing` in their logs) give the tokens each setup decoded and
read; the figure that compares like with like is decoded tokens per wall second.

    python bench/pool.py [--gguf PATH] [--binary PATH] [--threads 1] [--rounds 1] [--out FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path.insert(0, str(HERE / "tasks"))

from llama_server import DEFAULT_BINARY, LlamaServer, stop_on_signals  # noqa: E402

ALIAS = "qwen2.5-coder-0.5b-instruct"
GGUF = Path.home() / ".cache/rift/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
TASK = "Implement add(a, b) in calc.py so that it returns the sum of a and b."
ATTEMPTS = 4


def make_repo(path: Path) -> None:
    """A one-function project with a test, committed: what every candidate starts from."""
    path.mkdir(parents=True)
    (path / "calc.py").write_text("def add(a, b):\n    raise NotImplementedError\n")
    (path / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=path, check=True)
    subprocess.run([*git, "add", "-A"], cwd=path, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=path, check=True)


class SlotWatch:
    """Polls a server's `/slots` while a race runs: the most slots busy at once."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.most = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.wait(0.1):
            try:
                with urllib.request.urlopen(f"{self.root}/slots", timeout=2) as answer:
                    slots = json.load(answer)
            except (OSError, ValueError):
                continue
            self.most = max(self.most, sum(1 for s in slots if s.get("is_processing")))

    def __enter__(self) -> SlotWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


TIMING = re.compile(r"(prompt eval|\beval) time =\s*[\d.]+ ms /\s*(\d+) tokens")


def tokens_since(logs: list[Path], offsets: list[int]) -> dict[str, int]:
    """Prompt and decoded tokens the servers logged after `offsets` (each log's size then)."""
    total = {"prompt": 0, "decoded": 0}
    for log, offset in zip(logs, offsets, strict=True):
        with log.open("rb") as handle:
            handle.seek(offset)
            text = handle.read().decode("utf-8", "replace")
        for kind, count in TIMING.findall(text):
            total["prompt" if kind == "prompt eval" else "decoded"] += int(count)
    return total


def sizes(logs: list[Path]) -> list[int]:
    return [log.stat().st_size if log.exists() else 0 for log in logs]


def swarm(work: Path, name: str, config: dict[str, object], extra: list[str]) -> float:
    """One `rift swarm` in a fresh copy of the project with its own config; wall seconds."""
    project = work / name
    make_repo(project)
    home = work / f"{name}-home"
    (home / "rift").mkdir(parents=True)
    (home / "rift/config.json").write_text(json.dumps(config))
    env = {**os.environ, "XDG_CONFIG_HOME": str(home), "PYTHONPATH": str(SRC)}
    argv = [sys.executable, "-m", "rift", "swarm", TASK, "--attempts", str(ATTEMPTS)]
    argv += ["-m", ALIAS, "--max-iterations", "6", "--judge", "none", "--no-tui", *extra]
    start = time.monotonic()
    done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=1800)
    seconds = time.monotonic() - start
    (work / f"{name}.log").write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        print(f"bench: {name} swarm exited {done.returncode}; see {work}/{name}.log")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", type=Path, default=GGUF)
    parser.add_argument("--binary", type=Path, default=DEFAULT_BINARY)
    parser.add_argument("--threads", type=int, default=1, help="threads per server")
    parser.add_argument(
        "--rounds", type=int, default=1, help="races per setup, run one/pool then pool/one"
    )
    parser.add_argument("--out", type=Path, help="write the figures as JSON here too")
    args = parser.parse_args()
    stop_on_signals()
    work = Path(tempfile.mkdtemp(prefix="rift-bench-pool-"))
    extra = ["-np", "2", "-c", "8192", "--alias", ALIAS]
    servers = [
        LlamaServer(
            args.binary, args.gguf, work / f"server{n}.log", threads=args.threads, extra=extra
        )
        for n in (1, 2)
    ]
    wall = {"one": 0.0, "pool": 0.0}
    tokens = {"one": {"prompt": 0, "decoded": 0}, "pool": {"prompt": 0, "decoded": 0}}
    busy: dict[str, list[int]] = {"one": [0], "pool": [0, 0]}
    try:
        for server in servers:
            server.start()
        roots = [s.url.removesuffix("/v1") for s in servers]
        logs = [s.log for s in servers]
        setups = {
            "one": ({"host": servers[0].url}, ["--host", servers[0].url, "--parallel", "2"]),
            "pool": ({"hosts": [{"url": s.url, "model": ALIAS} for s in servers]}, []),
        }
        order = [
            name
            for n in range(args.rounds)
            for name in (("one", "pool") if n % 2 == 0 else ("pool", "one"))
        ]
        for n, name in enumerate(order):
            config, flags = setups[name]
            before = sizes(logs)
            watched = roots[:1] if name == "one" else roots
            with contextlib.ExitStack() as stack:
                watches = [stack.enter_context(SlotWatch(root)) for root in watched]
                wall[name] += swarm(work, f"{name}{n}", config, flags)
            for kind, count in tokens_since(logs, before).items():
                tokens[name][kind] += count
            busy[name] = [max(a, w.most) for a, w in zip(busy[name], watches, strict=True)]
    finally:
        for server in servers:
            server.stop()
    per_s = {name: tokens[name]["decoded"] / wall[name] for name in wall}
    figures = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE
        ).stdout.strip(),
        "attempts": ATTEMPTS,
        "rounds": args.rounds,
        "threads_per_server": args.threads,
        "one_server_s": round(wall["one"], 1),
        "pool_s": round(wall["pool"], 1),
        "ratio": round(wall["pool"] / wall["one"], 2),
        "tokens": tokens,
        "decoded_per_s": {name: round(value, 2) for name, value in per_s.items()},
        "throughput_ratio_pool_over_one": round(per_s["pool"] / max(per_s["one"], 1e-9), 2),
        "most_busy_slots": {"one": busy["one"][0], "pool": busy["pool"]},
        "logs": str(work),
    }
    print(json.dumps(figures, indent=2))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Spawn → `initialize` answer of `rift --acp`, beside `python -c pass`.

    python bench/acp_startup.py [--runs N]

An editor starts rift and waits for the answer to `initialize` before it shows
the agent as ready, so that is the figure: the wall time from just before the
process is spawned to the moment its reply line has been read, and the CPU
seconds rift had used by then (on a loaded machine wall time mostly measures
the wait for a core). The baseline is `python -c pass` spawned and reaped the
same way in the same run, so the difference is what rift itself costs. No
model server is needed: `initialize` must not touch one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUDGET_S = 1.0
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": 1, "clientCapabilities": {}},
}


def _cpu_seconds(pid: int) -> float:
    """utime + stime of a live process, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rift_once(env: dict[str, str], cwd: Path) -> tuple[float, float]:
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "rift", "--acp"],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())
    wall = time.perf_counter() - started
    cpu = _cpu_seconds(proc.pid)
    proc.stdin.close()
    proc.wait(timeout=30)
    if reply.get("result", {}).get("protocolVersion") != 1:
        raise SystemExit(f"unexpected initialize reply: {reply}")
    return wall, cpu


def _pass_once(env: dict[str, str], cwd: Path) -> tuple[float, float]:
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", "pass"], cwd=cwd, env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rift-acp-bench-") as tmp:
        home = Path(tmp)
        for sub in (".config", ".local/share", ".cache", "project"):
            (home / sub).mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("RIFT_")}
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_DATA_HOME=str(home / ".local/share"),
            XDG_CACHE_HOME=str(home / ".cache"),
        )
        cwd = home / "project"
        rift: list[tuple[float, float]] = []
        base: list[tuple[float, float]] = []
        for _ in range(args.runs):  # interleaved, so load changes hit both alike
            base.append(_pass_once(env, cwd))
            rift.append(_rift_once(env, cwd))
    rows = [("python -c pass", base), ("rift --acp → initialize", rift)]
    print(f"{'':26} {'wall median':>12} {'wall max':>9} {'cpu median':>11}   ({args.runs} runs)")
    for label, samples in rows:
        walls = [w for w, _ in samples]
        cpus = [c for _, c in samples]
        print(
            f"{label:26} {statistics.median(walls):11.3f}s {max(walls):8.3f}s"
            f" {statistics.median(cpus):10.3f}s"
        )
    rift_median = statistics.median(w for w, _ in rift)
    verdict = "within" if rift_median < BUDGET_S else "OVER"
    print(f"rift median {rift_median:.3f}s: {verdict} the {BUDGET_S:.1f}s budget")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

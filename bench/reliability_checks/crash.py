"""Crash safety: `kill -9` rift at random moments of turns, saves and approvals.

One HOME is shared by every run, so the files rift owns accumulate: each run
resumes the newest session (`--continue`), trusts a new project post-edit hook
(the trust store is rewritten), and answers every approval with "always allow"
(the user config is rewritten). Each run is SIGKILLed at one of these moments,
chosen at random: a random time after spawn, the instant a `done` arrives, the
instant an "always allow" or "trust" answer has been written to rift's stdin.

After every kill: every session file parses (or is empty: reserved, never
saved) with each tool call answered, the session holds every turn whose `done`
the client saw (the prompts are unique), and config.json and the trust store
parse.
"""

from __future__ import annotations

import json
import os
import random
import signal
import threading
import time
from pathlib import Path
from typing import Any

from .common import (
    MODEL,
    Report,
    Sandbox,
    Serve,
    check_session,
    fake_server,
    load_json,
    sandbox,
)

TURNS_PER_RUN = 3
MOMENTS = ("random-time", "on-done", "after-always-allow", "after-trust")


def _script(runs: int) -> dict[str, Any]:
    """Per prompt `turn R.K`: a bash call, a write, then a reply."""
    turns: list[dict[str, Any]] = []
    for run in range(runs):
        for k in range(TURNS_PER_RUN):
            tag = f"turn {run}.{k}"
            turns += [
                {
                    "match": f"{tag} go",
                    "tool_calls": [
                        {
                            "id": f"b{run}_{k}",
                            "name": "bash",
                            "arguments": {"command": f"echo s{run}_{k}"},
                        }
                    ],
                },
                {
                    "match": f"{tag} go",
                    "tool_calls": [
                        {
                            "id": f"w{run}_{k}",
                            "name": "write",
                            "arguments": {"path": f"f{run}_{k}.txt", "content": f"{tag}\n" * 50},
                        }
                    ],
                },
                {"match": f"{tag} go", "content": f"finished {tag}"},
            ]
    models = [{"name": MODEL, "capabilities": ["tools"], "context_length": 1_048_576}]
    return {"models": models, "turns": turns}


class _Client:
    """Answers asks the way a person who always says "always allow" would, and pulls
    the trigger at the chosen moment."""

    def __init__(self, serve: Serve, moment: str, rng: random.Random) -> None:
        self.serve = serve
        self.moment = moment
        self.kill_on = rng.randint(1, TURNS_PER_RUN)
        self.dones = 0
        self.killed = threading.Event()
        self.completed: list[str] = []
        self.current = ""
        serve.watchers.append(self.on_event)

    def kill(self) -> None:
        if not self.killed.is_set():
            self.killed.set()
            os.kill(self.serve.proc.pid, signal.SIGKILL)

    def on_event(self, event: dict[str, Any]) -> None:
        if self.killed.is_set():
            return
        if event["event"] == "ask":
            choices = [str(c) for c in event.get("choices") or []]
            always = [c for c in choices if c.startswith("always allow '")]
            answer = always[0] if always else ("trust" if "trust" in choices else choices[0])
            self.serve.send({"cmd": "answer", "id": event["id"], "text": answer})
            if (self.moment == "after-always-allow" and always) or (
                self.moment == "after-trust" and answer == "trust"
            ):
                self.kill()
        elif event["event"] == "done":
            self.completed.append(self.current)
            self.dones += 1
            if self.moment == "on-done" and self.dones == self.kill_on:
                self.kill()


def _one_run(box: Sandbox, url: str, run: int, rng: random.Random) -> dict[str, Any]:
    (box.project / ".rift.json").write_text(
        json.dumps({"hooks": {"post_edit": [f"true hook-{run}"]}}), encoding="utf-8"
    )
    moment = rng.choice(MOMENTS)
    serve = Serve(box, "--host", url, "-m", MODEL, "--continue", "--num-ctx", "1048576")
    client = _Client(serve, moment, rng)
    timer = threading.Timer(rng.uniform(0.2, 2.5), client.kill)
    if moment == "random-time":
        timer.start()
    session = ""
    try:
        ready = serve.expect("ready", 30)
        session = str(ready["session"])
        serve.send({"cmd": "hello", "edit_review": False})
        for k in range(TURNS_PER_RUN):
            client.current = f"turn {run}.{k} go"
            if not serve.send({"cmd": "prompt", "text": client.current}):
                break
            _, ok = serve.collect_until(lambda e: e["event"] == "done", 30)
            if not ok:
                break
    except AssertionError:
        pass  # killed before ready
    finally:
        timer.cancel()
        client.kill()
        serve.finish(10)
    return {"session": session, "completed": list(client.completed), "moment": moment}


def _prompts_in(path: Path) -> set[str]:
    data, _ = load_json(path)
    if not isinstance(data, dict):
        return set()
    return {
        str(m.get("content", "")).split("\n\n")[-1]
        for m in data.get("messages", [])
        if isinstance(m, dict) and m.get("role") == "user"
    }


def run_crash(runs: int, seed: int = 99) -> Report:
    report = Report(f"crash safety ({runs} kill -9 runs, seed {seed})")
    rng = random.Random(seed)
    expected: dict[str, set[str]] = {}
    moments: dict[str, int] = dict.fromkeys(MOMENTS, 0)
    bad_sessions = lost_turns = bad_config = bad_trust = 0
    started = time.monotonic()
    with (
        sandbox() as box,
        fake_server(_script(runs), log_path=box.root / "requests.jsonl") as server,
    ):
        for run in range(runs):
            outcome = _one_run(box, server.url, run, rng)
            moments[outcome["moment"]] += 1
            if outcome["session"]:
                done = expected.setdefault(outcome["session"], set())
                done.update(outcome["completed"])
            for path in sorted(box.sessions_dir.glob("*.json")):
                why = check_session(path)
                if why is not None:
                    bad_sessions += 1
                    report.problem(f"run {run} ({outcome['moment']}): {why}")
            for path, prompts in expected.items():
                missing = prompts - _prompts_in(Path(path))
                if missing:
                    lost_turns += len(missing)
                    report.problem(f"run {run} ({outcome['moment']}): lost {sorted(missing)}")
                    prompts -= missing  # count each loss once
            config, why = load_json(box.config_dir / "config.json")
            if why is not None or (
                config != "" and config is not None and not isinstance(config, dict)
            ):
                bad_config += 1
                report.problem(f"run {run}: config.json: {why}")
            trust, why = load_json(box.data_dir / "trusted-hooks.json")
            if why is not None or (trust not in ("", None) and not isinstance(trust, list)):
                bad_trust += 1
                report.problem(f"run {run}: trusted-hooks.json: {why}")
        leftovers = len(list(box.home.rglob(".*.tmp")))
        completed = sum(len(v) for v in expected.values())
        rules = load_json(box.config_dir / "config.json")[0]
        trusted = load_json(box.data_dir / "trusted-hooks.json")[0]
    report.add("runs killed with SIGKILL", runs)
    for moment, count in moments.items():
        report.add(f"  killed at {moment}", count)
    report.add("turns completed before a kill (done seen)", completed)
    report.add("session files that do not parse / are inconsistent", bad_sessions, want="== 0")
    report.add("completed turns missing from their session", lost_turns, want="== 0")
    report.add("half-written config.json seen", bad_config, want="== 0")
    report.add("half-written trusted-hooks.json seen", bad_trust, want="== 0")
    allow = rules.get("permissions", {}).get("allow", []) if isinstance(rules, dict) else []
    report.add("always-allow rules persisted", len(allow))
    report.add("hooks trusted", len(trusted) if isinstance(trusted, list) else 0)
    report.add("temp files left by killed writes (harmless)", leftovers)
    report.add("time", round(time.monotonic() - started, 1), " s")
    return report

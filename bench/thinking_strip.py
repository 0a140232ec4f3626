"""Prompt tokens saved by not re-sending old turns' reasoning (issue 19, item 2).

    python bench/thinking_strip.py [--turns 10] [--thinking-chars 2000]

A scripted thinking session: each of N headless turns (`rift -p … -c`, so
every turn continues the same session) thinks, lists the directory, thinks
again and answers, against the fake Ollama server. The fake server counts a
request's prompt tokens as its body size / 4, so the figures are the bytes
rift really sent.

Baseline, same run: the very same requests with the old turns' thinking put
back (taken from the saved session, which keeps it), i.e. what rift sent
before `strip_old_thinking` was wired in. Both are measured on the same
compact JSON encoding rift uses.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.append(str(REPO / "tests"))  # the fake model server: tests/fakes/

from fakes.fake_server import FakeModelServer  # noqa: E402

MODEL = {"name": "fake-model", "capabilities": ["tools", "thinking"], "context_length": 131072}


def _script(turns: int, chars: int) -> dict[str, Any]:
    script: list[dict[str, Any]] = []
    for n in range(1, turns + 1):
        reasoning = (f"turn {n} reasoning about the task. " * chars)[:chars]
        script += [
            {
                "match": f"task number {n}.",
                "thinking": reasoning,
                "tool_calls": [{"name": "ls", "arguments": {"path": "."}}],
            },
            {"match": f"task number {n}.", "thinking": reasoning[: chars // 2], "content": "ok"},
        ]
    return {"models": [MODEL], "turns": script}


def _tokens(body: dict[str, Any]) -> int:
    clean = {k: v for k, v in body.items() if not k.startswith("_")}
    return len(json.dumps(clean, ensure_ascii=False, separators=(",", ":")).encode()) // 4


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--thinking-chars", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir(parents=True)
        (home / ".config").mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("RIFT_")}
        env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
        env.update(XDG_DATA_HOME=str(home / "data"), PYTHONPATH=str(REPO / "src"))
        with FakeModelServer(_script(args.turns, args.thinking_chars)) as server:
            session = ""
            for n in range(1, args.turns + 1):
                argv = [sys.executable, "-m", "rift", "-p", f"task number {n}.", "--host"]
                argv += [server.url, "-m", "fake-model", "--output-format", "json"]
                argv += ["-c"] if n > 1 else []
                done = subprocess.run(
                    argv, cwd=project, env=env, capture_output=True, text=True, timeout=120
                )
                if done.returncode != 0:
                    print(done.stderr, file=sys.stderr)
                    return 1
                session = json.loads(done.stdout)["session"]
            bodies = server.chat_requests()
        stored = json.loads(Path(session).read_text(encoding="utf-8"))["messages"]
    sent = baseline = 0
    for body in bodies:
        sent += _tokens(body)
        restored = [
            {**wire, "thinking": stored[i]["thinking"]}
            if stored[i].get("thinking") and "thinking" not in wire
            else wire
            for i, wire in enumerate(body["messages"])
        ]
        baseline += _tokens({**body, "messages": restored})
    saved = baseline - sent
    print(f"{args.turns} turns, {len(bodies)} requests, {args.thinking_chars} chars of thinking")
    print(f"prompt tokens, old thinking re-sent (baseline): {baseline}")
    print(f"prompt tokens, old thinking stripped:           {sent}")
    print(f"saved: {saved} tokens ({100 * saved / baseline:.1f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

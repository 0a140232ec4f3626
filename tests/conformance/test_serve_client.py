"""scripts/serve_client.py --script against the real rift and the fake server."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from .serve_session import rift_command, tool_call

CLIENT = Path(__file__).resolve().parents[2] / "scripts" / "serve_client.py"
OLD = "one\ntwo\nthree\nfour\nfive\n"
NEW = "one\nTWO\nthree\nfour\nFIVE\n"


def test_reference_client_reviews_hunks_and_answers_asks(fake_server, project) -> None:
    (project / "notes.txt").write_text(OLD, encoding="utf-8")
    server = fake_server(
        {
            "turns": [
                {
                    "match": "first",
                    "thinking": "hmm",
                    "content": "Sure.",
                    "tool_calls": [tool_call("write", path="notes.txt", content=NEW)],
                },
                {"match": "first", "tool_calls": [tool_call("bash", command="echo ran > ran.txt")]},
                {"match": "first", "content": "All done."},
                {"match": "second", "content": "Bye."},
            ]
        }
    )
    steps = [
        {"prompt": "first", "reviews": [[True, False]], "answers": [1]},
        {"command": {"cmd": "list_sessions"}, "until": "sessions"},
        {"prompt": "second"},
    ]
    script = project.parent / "steps.json"
    script.write_text(json.dumps(steps), encoding="utf-8")
    command = [
        sys.executable,
        str(CLIENT),
        "--rift",
        shlex.join(rift_command()),
        "--host",
        server.url,
        "--model",
        "fake-model",
        "--script",
        str(script),
    ]
    done = subprocess.run(
        command, cwd=project, capture_output=True, text=True, timeout=30, env=dict(os.environ)
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert (project / "notes.txt").read_text(encoding="utf-8") == "one\nTWO\nthree\nfour\nfive\n", (
        out
    )
    assert (project / "ran.txt").read_text(encoding="utf-8") == "ran\n"
    assert "review> y n" in out
    assert "answer> allow once" in out
    for text in ("Sure.", "All done.", "Bye.", "→ write", "✓ write", "✓ bash", "[done"):
        assert text in out, text
    assert out.count("[done") == 2

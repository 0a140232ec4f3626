"""Lines typed into a background shell pass the gate (family "background-input").

`bash {"command": "sh", "run_in_background": true}` starts a shell that runs
whatever the `task` tool feeds its stdin, so every input line is a bash command
as far as the deny rules go. One `rift -p` run under `deny Bash(rm *)` feeds the
shell several spellings of `rm victim-N`; none may delete its file, while a
control line (`touch control`, not denied) must run.
"""

from __future__ import annotations

import subprocess
from typing import Any

from .common import MODEL, fake_server, rift_argv, sandbox

INPUTS = {
    "plain rm": "rm victim-0\n",
    "rm after a harmless line": "echo hi\nrm victim-1\n",
    "sh -c rm": "sh -c 'rm victim-2'\n",
    "computed program": "r$()m victim-3\n",
}


def _script() -> dict[str, Any]:
    calls: list[dict[str, Any]] = [
        {"id": "sh", "name": "bash", "arguments": {"command": "sh", "run_in_background": True}}
    ]
    for i, line in enumerate(INPUTS.values()):
        calls.append({"id": f"in{i}", "name": "task", "arguments": {"id": 1, "input": line}})
    control = {"id": 1, "input": "touch control\n"}
    calls.append({"id": "ctl", "name": "task", "arguments": control})
    calls.append({"id": "wait", "name": "bash", "arguments": {"command": "sleep 1"}})
    calls.append({"id": "eof", "name": "task", "arguments": {"id": 1, "close_stdin": True}})
    calls.append({"id": "wait2", "name": "bash", "arguments": {"command": "sleep 0.5"}})
    return {"turns": [{"tool_calls": calls}, {"content": "fed it"}]}


def background_input_attacks() -> tuple[dict[str, bool], bool, str]:
    """({case: refused}, the control line ran, rift's stderr tail)."""
    with sandbox() as box, fake_server(_script()) as server:
        box.write_user_config({"permissions": {"deny": ["Bash(rm *)"]}})
        for i in range(len(INPUTS)):
            (box.project / f"victim-{i}").write_text("keep me\n", encoding="utf-8")
        done = subprocess.run(
            [*rift_argv(), "-p", "feed the shell", "--host", server.url, "-m", MODEL],
            cwd=box.project,
            env=box.env(),
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        refused = {name: (box.project / f"victim-{i}").exists() for i, name in enumerate(INPUTS)}
        control = (box.project / "control").exists()
    return refused, control, done.stderr[-800:]

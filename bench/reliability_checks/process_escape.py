"""Children that leave their process group still die with rift (family "process-hygiene").

A command's `&` child with its output redirected, a `nohup` child and a `setsid`
child (a new session: the process-group kill cannot reach it) are started from
a foreground bash call and from a background task; then rift ends one way:
`rift -p` finishing its turn, `rift --serve` cancelling the running command,
`rift --serve` reaching stdin EOF. Afterwards no process carrying the run's
markers may be alive (for cancel: before stdin is closed, so the cancel alone
must have done it).
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from typing import Any

from .common import MODEL, Serve, fake_server, rift_argv, sandbox
from .hygiene import Marker
from .procs import kill_pids, wait_until

GONE_WITHIN_S = 10.0
STYLES = ("amp", "nohup", "setsid")


def _escapers(markers: dict[str, Marker]) -> str:
    """One shell line starting each kind of escaping child, returning at once."""
    spell = {
        "amp": "sleep {s} >/dev/null 2>&1 &",
        "nohup": "nohup sleep {s} >/dev/null 2>&1 &",
        "setsid": "setsid sleep {s} >/dev/null 2>&1 </dev/null &",
    }
    return " ".join(spell[k].format(s=markers[k].seconds) for k in STYLES) + " echo started"


def _call(command: str, call_id: str, background: bool = False) -> dict[str, Any]:
    args: dict[str, Any] = {"command": command}
    if background:
        args["run_in_background"] = True
    return {"id": call_id, "name": "bash", "arguments": args}


def _survivors(markers: dict[str, Marker]) -> dict[str, bool]:
    """{style: still alive} after giving the processes GONE_WITHIN_S to go."""
    wait_until(lambda: not any(m.pids() for m in markers.values()), GONE_WITHIN_S)
    alive = {style: bool(m.pids()) for style, m in markers.items()}
    for m in markers.values():
        kill_pids(m.pids())
    return alive


def _started(markers: dict[str, Marker]) -> bool:
    return bool(wait_until(lambda: all(m.pids() for m in markers.values()), 15))


def headless_exit() -> dict[str, bool]:
    """`rift -p`: a foreground command and a background task start escapers; rift exits."""
    fore = {k: Marker() for k in STYLES}
    back = {f"task {k}": Marker() for k in STYLES}
    task_line = _escapers({k: back[f"task {k}"] for k in STYLES}) + "; sleep 1"
    calls = [_call(_escapers(fore), "f"), _call(task_line, "b", background=True)]
    calls.append(_call("sleep 0.5", "w"))
    script = {"turns": [{"tool_calls": calls}, {"content": "done"}]}
    with sandbox() as box, fake_server(script) as server:
        subprocess.run(
            [*rift_argv(), "-p", "go", "--host", server.url, "-m", MODEL],
            cwd=box.project,
            env=box.env(),
            capture_output=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        return {f"-p exit: {k}": v for k, v in _survivors({**fore, **back}).items()}


def _serve(
    label: str, script: dict[str, Any], markers: dict[str, Marker], end: Callable[[Serve], None]
) -> dict[str, bool]:
    with sandbox() as box, fake_server(script) as server:
        serve = Serve(box, "--host", server.url, "-m", MODEL)
        try:
            serve.expect("ready", 30)
            serve.send({"cmd": "set_approval", "approve": False})
            serve.send({"cmd": "prompt", "text": "go"})
            if not _started(markers):
                return {f"{label}: escapers started": True}
            end(serve)
            alive = _survivors(markers)
            serve.finish(30)
        finally:
            serve.kill()
    return {f"{label}: {k}": v for k, v in alive.items()}


def serve_cancel() -> dict[str, bool]:
    """`cancel` while the command that started the escapers still runs."""
    markers = {k: Marker() for k in STYLES}
    hold = Marker()
    line = _escapers(markers) + f"; sleep {hold.seconds}"
    script = {"turns": [{"tool_calls": [_call(line, "c")]}, {"content": "cancelled"}]}

    def cancel(serve: Serve) -> None:
        serve.send({"cmd": "cancel"})
        serve.expect("done", 15)

    return _serve("serve cancel", script, {**markers, "the command": hold}, cancel)


def serve_eof() -> dict[str, bool]:
    """stdin EOF after a finished command and a background task started escapers."""
    fore = {k: Marker() for k in STYLES}
    back = {f"task {k}": Marker() for k in STYLES}
    task_line = _escapers({k: back[f"task {k}"] for k in STYLES}) + "; sleep 1"
    calls = [_call(_escapers(fore), "f"), _call(task_line, "b", background=True)]
    script = {"turns": [{"tool_calls": calls}, {"content": "done"}]}

    def eof(serve: Serve) -> None:
        serve.expect("done", 30)
        time.sleep(0.2)
        serve.close_stdin()

    return _serve("serve EOF", script, {**fore, **back}, eof)


def escape_scenarios() -> dict[str, bool]:
    """{case: a process survived} over every scenario."""
    return {**headless_exit(), **serve_cancel(), **serve_eof()}

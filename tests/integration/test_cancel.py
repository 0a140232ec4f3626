"""Cancellation leaves no child process alive, and the next prompt knows.

The model asks for `sleep 300; echo MARKER_<uuid>`; once that shell is
running, the turn is cancelled (serve `cancel`, stdin closed, SIGINT/SIGTERM)
and /proc must hold no process with the marker within 2 s. The cancelled call
still gets a tool result, so the session file stays valid.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rift.core.session import INTERRUPT_NOTE


def _sleeper(marker: Any) -> list[dict[str, Any]]:
    command = f"sleep 300; echo {marker}"
    return [
        {"tool_calls": [{"id": "c1", "name": "bash", "arguments": {"command": command}}]},
        {"content": "fresh start"},
    ]


def _start_sleeping_turn(harness: Any, serve: Any, marker: Any) -> tuple[Any, Any]:
    server = harness.server(_sleeper(marker))
    client = serve(server)
    client.send({"cmd": "set_approval", "approve": False})
    client.expect("approval_changed", approve=False)
    client.send({"cmd": "prompt", "text": "run the long job"})
    client.expect("tool_start", name="bash")
    assert marker.wait_alive(10), "the scripted command never started"
    return server, client


def _cancelled_result(session_path: str) -> str:
    messages = json.loads(Path(session_path).read_text())["messages"]
    return next(m["content"] for m in messages if m.get("tool_call_id") == "c1")


def test_serve_cancel_kills_the_command_and_flags_the_next_prompt(
    harness: Any, serve: Any, marker: Any
) -> None:
    server, client = _start_sleeping_turn(harness, serve, marker)
    client.send({"cmd": "cancel"})
    client.expect("warning", text="turn cancelled")
    client.expect("done")
    assert marker.wait_gone(2), f"still running after cancel: {marker.pids()}"

    client.send({"cmd": "prompt", "text": "do something else"})
    client.expect("content", text="fresh start")
    client.expect("done")
    last_user = server.chat_requests()[-1]["messages"][-1]
    assert last_user["role"] == "user"
    assert last_user["content"] == INTERRUPT_NOTE + "do something else"
    client.close_stdin()
    assert client.proc.wait(timeout=10) == 0

    session = client.events[0]["session"]
    assert _cancelled_result(session) == "ERROR: cancelled by user"
    stderr = client.stderr()
    assert "Traceback" not in stderr and "never retrieved" not in stderr


def test_serve_stdin_closed_mid_command(harness: Any, serve: Any, marker: Any) -> None:
    _, client = _start_sleeping_turn(harness, serve, marker)
    client.close_stdin()
    assert client.proc.wait(timeout=10) == 0
    assert marker.wait_gone(2), f"still running after EOF: {marker.pids()}"
    assert _cancelled_result(client.events[0]["session"]) == "ERROR: cancelled by user"
    stderr = client.stderr()
    assert "Traceback" not in stderr and "never retrieved" not in stderr


def test_serve_sigterm_mid_command(harness: Any, serve: Any, marker: Any) -> None:
    """Editors stop `rift --serve` with SIGTERM; the command's process group goes too."""
    _, client = _start_sleeping_turn(harness, serve, marker)
    client.proc.send_signal(signal.SIGTERM)
    client.proc.wait(timeout=10)
    assert marker.wait_gone(2), f"still running after SIGTERM: {marker.pids()}"
    assert _cancelled_result(client.events[0]["session"]) == "ERROR: cancelled by user"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_headless_signal_mid_command(harness: Any, marker: Any, sig: signal.Signals) -> None:
    server = harness.server(_sleeper(marker))
    argv = [*harness.cli_argv(), "-p", "run the long job", "--host", server.url]
    proc = subprocess.Popen(
        [*argv, "-m", "fake-model", "--output-format", "json"],
        cwd=harness.project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert marker.wait_alive(10), "the scripted command never started"
        import time
        t0 = time.monotonic()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
        print("EXIT AFTER", time.monotonic() - t0, err)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert marker.wait_gone(2), f"still running after {sig.name}: {marker.pids()}"
    assert proc.returncode != 0, (out, err)
    assert "warning: turn cancelled" in err
    assert "Traceback" not in err and "never retrieved" not in err
    result = json.loads(out)
    assert _cancelled_result(result["session"]) == "ERROR: cancelled by user"
    assert len(server.chat_requests()) == 1

"""Cancellation leaves no child process alive, and the next prompt knows.

The model asks for `sleep 300.<unique>; echo MARKER_300.<unique>` (the token
tags both `sh` and `sleep`); once it is running, the turn is cancelled (serve
`cancel`, stdin closed, SIGINT/SIGTERM) and /proc must hold no process with the
token within 2 s. The cancelled call
still gets a tool result, so the session file stays valid.
"""

from __future__ import annotations

import signal
from typing import Any

import pytest

from rift.core.sessions.store import INTERRUPT_NOTE


def _sleeper(marker: Any) -> list[dict[str, Any]]:
    command = marker.command()
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


def _serve_result(client: Any) -> str:
    return next(m["content"] for m in client.session()["messages"] if m.get("tool_call_id") == "c1")


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

    assert _serve_result(client) == "ERROR: cancelled by user"
    stderr = client.stderr()
    assert "Traceback" not in stderr and "never retrieved" not in stderr


def test_serve_stdin_closed_mid_command(harness: Any, serve: Any, marker: Any) -> None:
    _, client = _start_sleeping_turn(harness, serve, marker)
    client.close_stdin()
    assert client.proc.wait(timeout=10) == 0
    assert marker.wait_gone(2), f"still running after EOF: {marker.pids()}"
    assert _serve_result(client) == "ERROR: cancelled by user"
    stderr = client.stderr()
    assert "Traceback" not in stderr and "never retrieved" not in stderr


def test_serve_sigterm_mid_command(harness: Any, serve: Any, marker: Any) -> None:
    """Editors stop `rift --serve` with SIGTERM; the command's process group goes too."""
    _, client = _start_sleeping_turn(harness, serve, marker)
    client.proc.send_signal(signal.SIGTERM)
    code = client.proc.wait(timeout=10)
    assert code == 0, client.stderr()  # a clean shutdown, like stdin EOF
    assert marker.wait_gone(2), f"still running after SIGTERM: {marker.pids()}"
    assert _serve_result(client) == "ERROR: cancelled by user"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_headless_signal_mid_command(harness: Any, marker: Any, sig: signal.Signals) -> None:
    server = harness.server(_sleeper(marker))
    proc = harness.start("run the long job", server)
    try:
        assert marker.wait_alive(10), "the scripted command never started"
        proc.send_signal(sig)
    finally:
        run = harness.finish(proc, server)
    assert marker.wait_gone(2), f"still running after {sig.name}: {marker.pids()}"
    assert run.code == 130, run.describe()
    assert "warning: turn cancelled" in run.stderr
    assert "Traceback" not in run.stderr and "never retrieved" not in run.stderr
    assert run.result["tools"] == []  # the call never finished, so no tool_result event
    assert run.tool_results() == {"c1": "ERROR: cancelled by user"}
    assert len(server.chat_requests()) == 1

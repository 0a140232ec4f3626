"""Post-edit hooks: the user's run freely, the project's only after trust per exact command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from extend_helpers import config_dir, data_dir, request_text, trusted, write_json

from rift.config.trust import hook_trust_key

HOOK = "echo lint broke; exit 1"


def write_turns() -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"name": "write", "arguments": {"path": "a.txt", "content": "x\n"}}]},
        {"content": "written"},
    ]


def _write_and_allow(serve: Any) -> None:
    serve.send({"cmd": "prompt", "text": "write a.txt"})
    ask = serve.until("ask")
    assert ask["question"].startswith("Allow write")
    serve.send({"cmd": "answer", "id": ask["id"], "text": "allow"})
    serve.until("done")


def test_project_hook_trust_ask_then_failure_reaches_the_model(
    fake_server, start_serve, project: Path
) -> None:
    write_json(project / ".rift.json", {"hooks": {"post_edit": [HOOK]}})
    server = fake_server({"turns": write_turns()})
    serve = start_serve(server)
    serve.send({"cmd": "hello"})
    ask = serve.until("ask")
    assert ask["id"] == 1
    assert ask["question"] == f"Trust project hook: {HOOK}?"
    assert ask["choices"] == ["trust", "skip"]
    serve.send({"cmd": "answer", "id": 1, "text": "yes"})
    serve.until("info", text=f"project hook trusted: {HOOK}")
    assert trusted() == [hook_trust_key(project, HOOK)]
    _write_and_allow(serve)
    followup = request_text(server.chat_requests()[1])
    assert "post-edit hook FAILED (exit 1)" in followup
    assert "lint broke" in followup
    assert (project / "a.txt").read_text() == "x\n"  # a failing hook does not undo the edit
    assert serve.close() == 0

    # Trusted once: the next session runs it without asking.
    server2 = fake_server({"turns": write_turns()})
    serve2 = start_serve(server2)
    serve2.send({"cmd": "hello"})
    _write_and_allow(serve2)
    assert [a["question"].split(":")[0] for a in serve2.named("ask")] == ["Allow write"]
    assert "post-edit hook FAILED" in request_text(server2.chat_requests()[1])
    assert serve2.close() == 0


def test_a_skipped_project_hook_never_runs(fake_server, start_serve, project: Path) -> None:
    write_json(project / ".rift.json", {"hooks": {"post_edit": [HOOK]}})
    server = fake_server({"turns": write_turns()})
    serve = start_serve(server)
    serve.send({"cmd": "hello"})
    ask = serve.until("ask")
    serve.send({"cmd": "answer", "id": ask["id"], "text": "skip"})
    serve.until("info")
    _write_and_allow(serve)
    assert "post-edit hook" not in request_text(server.chat_requests()[1])
    assert trusted() == []
    assert serve.close() == 0


def test_an_edited_hook_command_asks_again(fake_server, start_serve, project: Path) -> None:
    write_json(data_dir() / "trusted-hooks.json", [hook_trust_key(project, HOOK)])
    write_json(project / ".rift.json", {"hooks": {"post_edit": [HOOK + " "]}})
    serve = start_serve(fake_server({}))
    serve.send({"cmd": "hello"})
    assert serve.until("ask")["question"] == f"Trust project hook: {HOOK} ?"
    assert serve.close() == 0


def test_user_hooks_run_without_asking(fake_server, start_serve, project: Path) -> None:
    write_json(config_dir() / "config.json", {"hooks": {"post_edit": [HOOK]}})
    server = fake_server({"turns": write_turns()})
    serve = start_serve(server)
    serve.send({"cmd": "hello"})
    _write_and_allow(serve)
    assert [a["question"].split(":")[0] for a in serve.named("ask")] == ["Allow write"]
    assert "post-edit hook FAILED (exit 1)" in request_text(server.chat_requests()[1])
    assert serve.close() == 0


def test_headless_skips_untrusted_project_hooks(fake_server, harness_run, project) -> None:
    write_json(project / ".rift.json", {"hooks": {"post_edit": [HOOK]}})
    server = fake_server({"turns": write_turns()})
    run = harness_run(server, "write a.txt")
    assert run.returncode == 0, run.stderr
    assert "1 untrusted project post-edit hook skipped" in run.stderr
    assert "post-edit hook" not in request_text(server.chat_requests()[1])

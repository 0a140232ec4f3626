"""A server's only model is used when none is named (issue 44): `rift --host URL -p …` on a
llama-server with one model tried rift's default model and stopped with "not usable …
models: <the one>". Several models: one line listing them and saying how to pick. `rift
doctor --host` does the same and goes on to check context and tool calls."""

from __future__ import annotations

from typing import Any

ONE = [{"name": "qwen-coder", "context_length": 32768}]
TWO = [{"name": "qwen-coder", "context_length": 32768}, {"name": "llama-3", "context_length": 8192}]
PROBE_CALL = {"name": "report_number", "arguments": {"number": 7}}


def test_the_only_model_a_host_serves_is_used_when_none_is_named(harness: Any) -> None:
    server = harness.server([{"content": "hello"}], models=ONE, wire="openai")
    run = harness.cli(["--host", server.v1_url, "-p", "hi"])
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "hello"
    assert f"using model qwen-coder, the only one {server.v1_url} serves" in run.stderr
    assert "not usable" not in run.stderr
    assert server.chat_requests()[0]["model"] == "qwen-coder"


def test_several_models_and_none_named_is_one_line_saying_how_to_pick(harness: Any) -> None:
    server = harness.server([{"content": "never"}], models=TWO, wire="openai")
    run = harness.cli(["--host", server.v1_url, "-p", "hi"])
    assert run.returncode == 2, run.stderr
    [line] = [row for row in run.stderr.splitlines() if row.strip()]
    assert "qwen-coder, llama-3" in line and "--model NAME" in line, line
    assert server.chat_requests() == []


def test_a_named_model_that_is_not_served_still_fails(harness: Any) -> None:
    server = harness.server([{"content": "never"}], models=ONE, wire="openai")
    run = harness.cli(["--host", server.v1_url, "-m", "other", "-p", "hi"])
    assert run.returncode == 2
    assert "not usable" in run.stderr and "qwen-coder" in run.stderr


def test_doctor_uses_the_only_model_then_checks_context_and_tools(harness: Any) -> None:
    server = harness.server([{"tool_calls": [PROBE_CALL]}], models=ONE, wire="openai")
    run = harness.cli(["doctor", "--host", server.v1_url], timeout=50)
    report = run.stdout + run.stderr
    assert run.returncode == 0, report
    assert "using model qwen-coder, the only one" in report
    assert any(row.split()[:2] == ["ok", "tool"] for row in report.splitlines()), report
    assert any(row.split()[1:2] == ["context"] for row in report.splitlines()), report


def test_doctor_with_several_models_and_none_named_lists_them(harness: Any) -> None:
    server = harness.server([], models=TWO, wire="openai")
    run = harness.cli(["doctor", "--host", server.v1_url], timeout=50)
    report = run.stdout + run.stderr
    assert run.returncode == 1, report
    assert "qwen-coder, llama-3" in report and "--model NAME" in report

"""`rift doctor` (issue 31): the real CLI against the fake server in its Ollama and OpenAI
(llama.cpp-like) shapes, and against a dead port; judged by its report and exit status."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from rift_bin import run_rift

pytestmark = pytest.mark.timeout(60)

PROBE_CALL = {"name": "report_number", "arguments": {"number": 7}}
LLAMA_PROPS = {
    "default_generation_settings": {"n_ctx": 4096},
    "total_slots": 2,
    "modalities": {"vision": False},
    "chat_template": "{% if tools %}...{% endif %}",
    "build_info": "b1-test",
}


def doctor(project: Path, *args: str) -> tuple[int, str]:
    run = run_rift(["doctor", *args], project, timeout=50)
    assert "Traceback" not in run.stderr, run.stderr
    return run.returncode, run.stdout + run.stderr


def line(report: str, name: str) -> str:
    """The report line of one check (its status word, name and detail)."""
    found = [row for row in report.splitlines() if row.split()[1:2] == [name.split()[0]]]
    assert found, f"no '{name}' line in:\n{report}"
    return found[0]


def test_ollama_server_passes_with_a_structured_call(fake_server: Any, project: Path) -> None:
    server = fake_server({"turns": [{"tool_calls": [PROBE_CALL]}]})
    code, report = doctor(project, "--host", server.url, "-m", "fake-model")
    assert code == 0, report
    assert "Ollama (native API)" in line(report, "server")
    assert line(report, "model").split()[0] == "ok"
    assert "num_ctx 32768" in line(report, "context")
    assert line(report, "tool").split()[0] == "ok"
    assert "OLLAMA_NUM_PARALLEL" in line(report, "parallel")
    probe = server.chat_requests()[0]
    assert [t["function"]["name"] for t in probe["tools"]] == ["report_number"]


def test_missing_model_fails_and_names_the_served_ones(fake_server: Any, project: Path) -> None:
    server = fake_server({"turns": []})
    code, report = doctor(project, "--host", server.url, "-m", "nope:7b")
    assert code == 1, report
    assert line(report, "model").startswith("  FAIL")
    assert "fake-model" in report and "-m fake-model" in report
    assert server.chat_requests() == []  # no probe once the model is known to be missing


def test_llama_cpp_like_server_reports_window_slots_and_text_calls(
    fake_server: Any, project: Path
) -> None:
    text_call = '```json\n{"name": "report_number", "arguments": {"number": 7}}\n```'
    server = fake_server(
        {
            "wire": "openai",
            "props": LLAMA_PROPS,
            "models": [{"name": "qwen", "extra": {"meta": {"n_ctx_train": 32768}}}],
            "turns": [{"content": text_call, "usage": {"prompt_tokens": 120}}],
        }
    )
    code, report = doctor(project, "--host", server.v1_url, "-m", "qwen")
    assert code == 0, report
    assert "llama.cpp server" in line(report, "server") and "b1-test" in report
    context = line(report, "context")
    assert context.split()[0] == "warn" and "4096 tokens per slot" in context
    assert "-c 65536 -np 2" in report  # what to change for rift's full 32768
    assert line(report, "tool").split()[0] == "warn"
    assert "--jinja" in report
    assert "2 slot(s)" in line(report, "parallel")
    assert "120 prompt tokens" in line(report, "prompt")


def test_llama_cpp_without_jinja_refuses_tools_and_fails(fake_server: Any, project: Path) -> None:
    server = fake_server(
        {
            "wire": "openai",
            "props": LLAMA_PROPS,
            "models": [{"name": "qwen"}],
            "turns": [{"status": 500, "error": "tools param requires --jinja flag"}],
        }
    )
    code, report = doctor(project, "--host", server.v1_url, "-m", "qwen")
    assert code == 1, report
    assert line(report, "tool").startswith("  FAIL")
    assert "start llama-server with --jinja" in report


def test_ollama_openai_endpoint_warns_about_its_default_window(
    fake_server: Any, project: Path
) -> None:
    server = fake_server({"turns": [{"tool_calls": [PROBE_CALL]}]})
    code, report = doctor(project, "--host", server.v1_url, "-m", "fake-model")
    assert code == 0, report
    assert "Ollama (OpenAI-compatible endpoint)" in line(report, "server")
    context = line(report, "context")
    assert context.split()[0] == "warn" and "OLLAMA_CONTEXT_LENGTH" in context
    assert f"--host {server.url} " in report


def test_dead_port_fails_with_one_clear_report(project: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code, report = doctor(project, "--host", f"http://127.0.0.1:{port}", "-m", "m")
    assert code == 1, report
    assert line(report, "server").startswith("  FAIL")
    assert f"127.0.0.1:{port}" in report and "--host URL" in report
    assert len([r for r in report.splitlines() if r.startswith("  ")]) == 2  # check + fix

"""Ollama's OpenAI-compatible endpoint serves its own default window whatever rift asks
(issue 31, item 6): one startup warning saying what to set, unless the window is known
(the model's Modelfile, OLLAMA_CONTEXT_LENGTH), and then rift budgets to it. Through
`rift --serve` against the fake server, which answers Ollama's native API beside `/v1`
unless told to speak only OpenAI's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from serve_driver import ServeProcess

pytestmark = pytest.mark.timeout(60)


def _start(project: Path, host: str) -> tuple[dict[str, Any], list[str], list[str]]:
    """rift's `ready`, its warnings and infos up to the first `context` after it."""
    rift = ServeProcess(project, "--host", host, "-m", "fake-model")
    ready = rift.until("ready")
    rift.send({"cmd": "list_sessions"})  # an answer after the startup notices
    rift.until("sessions")
    assert rift.close() == 0
    warnings = [e["text"] for e in rift.named("warning")]
    infos = [e["text"] for e in rift.named("info")]
    return ready, warnings, infos


def test_ollama_v1_warns_once_what_to_set(project: Path, fake_server: Any) -> None:
    server = fake_server({"turns": []})
    ready, warnings, _ = _start(project, server.v1_url)
    said = [w for w in warnings if "OLLAMA_CONTEXT_LENGTH" in w]
    assert len(said) == 1, warnings
    assert "Ollama's OpenAI-compatible endpoint" in said[0]
    assert f"--host {server.url} " in said[0] and "OLLAMA_CONTEXT_LENGTH=32768" in said[0]
    assert ready["num_ctx"] == 32768


def test_a_modelfile_num_ctx_is_the_budget_and_no_warning(project: Path, fake_server: Any) -> None:
    models = [{"name": "fake-model", "capabilities": ["tools"], "parameters": "num_ctx 8192"}]
    server = fake_server({"models": models, "turns": []})
    ready, warnings, infos = _start(project, server.v1_url)
    assert not any("OLLAMA_CONTEXT_LENGTH" in w for w in warnings), warnings
    assert ready["num_ctx"] == 8192
    assert any("8192" in i and "Modelfile" in i for i in infos), infos


def test_ollama_context_length_where_rift_runs_is_the_budget(
    project: Path, fake_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_CONTEXT_LENGTH", "16384")
    server = fake_server({"turns": []})
    ready, warnings, _ = _start(project, server.v1_url)
    assert not any("Ollama's OpenAI-compatible" in w for w in warnings), warnings
    assert ready["num_ctx"] == 16384


def test_other_servers_and_ollamas_native_api_get_no_such_warning(
    project: Path, fake_server: Any
) -> None:
    vllm_like = fake_server({"wire": "openai", "turns": []})
    _, warnings, _ = _start(project, vllm_like.v1_url)
    assert not any("OLLAMA_CONTEXT_LENGTH" in w for w in warnings), warnings
    assert vllm_like.requests("/api/show") == []  # not Ollama: asked once, then nothing more
    ollama = fake_server({"turns": []})
    _, warnings, _ = _start(project, ollama.url)
    assert not any("OLLAMA_CONTEXT_LENGTH" in w for w in warnings), warnings

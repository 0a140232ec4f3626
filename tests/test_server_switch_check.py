"""The doctor's quick checks after a switch to another server (issue 31, item 8): through
`rift --serve` and `set_model` onto a configured provider, against the fake server in
its llama.cpp-like shape; judged by the `warning` events (code "server") that follow."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from rift_bin import write_json
from serve_driver import ServeProcess

pytestmark = pytest.mark.timeout(60)

CRAMPED = {
    "default_generation_settings": {"n_ctx": 4096},
    "total_slots": 1,
    "chat_template": "{% for m in messages %}{{ m.content }}{% endfor %}",
}
ROOMY = {
    "default_generation_settings": {"n_ctx": 65536},
    "total_slots": 4,
    "chat_template": "{% if tools %}{{ tools }}{% endif %}",
}


def _serve(project: Path, fake_server: Any, props: dict[str, Any]) -> tuple[ServeProcess, Any]:
    """rift on an Ollama-shaped server, with a provider `box` on a llama.cpp-shaped one."""
    home = fake_server({"turns": []})
    box = fake_server(
        {"wire": "openai", "props": props, "models": [{"name": "qwen"}, {"name": "qwen-b"}]}
    )
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json"
    write_json(config, {"providers": {"box": {"base_url": box.v1_url}}})
    rift = ServeProcess(project, "--host", home.url, "-m", "fake-model")
    rift.until("ready")
    return rift, box


def _server_warnings(rift: ServeProcess) -> list[str]:
    return [e["text"] for e in rift.named("warning") if e.get("code") == "server"]


def test_a_switch_to_a_cramped_llama_server_warns_what_to_change(
    project: Path, fake_server: Any
) -> None:
    rift, box = _serve(project, fake_server, CRAMPED)
    rift.send({"cmd": "set_model", "model": "box/qwen"})
    rift.until("model_changed", model="box/qwen")
    rift.until("warning", code="server")
    deadline = time.monotonic() + 5
    while len(_server_warnings(rift)) < 3 and time.monotonic() < deadline:
        rift.until("warning", timeout=deadline - time.monotonic(), code="server")
    warned = _server_warnings(rift)
    assert rift.close() == 0
    assert any("4096 tokens per slot" in w and "-c 32768" in w for w in warned), warned
    assert any("no tool support" in w and "--jinja" in w for w in warned), warned
    assert any("1 slot(s)" in w and "-np 2" in w for w in warned), warned
    assert all(w.startswith(box.v1_url) for w in warned), warned
    assert box.chat_requests() == []  # no tool probe: the check costs no chat request


def test_a_switch_to_a_roomy_server_says_nothing_and_a_same_host_switch_asks_nothing_more(
    project: Path, fake_server: Any
) -> None:
    rift, box = _serve(project, fake_server, ROOMY)
    rift.send({"cmd": "set_model", "model": "box/qwen"})
    rift.until("model_changed", model="box/qwen")
    time.sleep(0.5)  # the check runs beside the conversation; give it time to speak
    props_after_host_switch = len(box.requests("/props"))
    rift.send({"cmd": "set_model", "model": "box/qwen-b"})
    rift.until("model_changed", model="box/qwen-b")
    time.sleep(0.5)
    assert rift.close() == 0
    assert _server_warnings(rift) == []
    # the preflight's own /props, and no second one for a check on the same server
    assert len(box.requests("/props")) == props_after_host_switch + 1

"""Prompt content beyond text: an image reaches a vision model as an image (Ollama
`images`) and is left out with a note for a model without vision; `initialize` does
not advertise images, since it is answered before any model is chosen."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import image_block, text_block
from acp_harness import MODEL, Recorder, connect, run

PIXEL = base64.b64encode(b"\x89PNG\r\n\x1a\n tiny").decode()


def _ask_with_image(project: Path, server: Any) -> None:
    async def scenario() -> None:
        async with connect(Recorder(), project, server) as rift:
            assert rift.init.agent_capabilities.prompt_capabilities.image is False
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            prompt = [text_block("what is in"), image_block(PIXEL, "image/png")]
            done = await rift.conn.prompt(session_id=sid, prompt=prompt)
            assert done.stop_reason == "end_turn"

    run(scenario())


def test_an_image_reaches_a_vision_model(project: Path, fake_server: Any) -> None:
    models = [{"name": MODEL, "capabilities": ["tools", "vision"], "context_length": 32768}]
    server = fake_server({"models": models, "turns": [{"content": "a pixel"}]})
    _ask_with_image(project, server)
    user = server.chat_requests()[-1]["messages"][-1]
    assert user["images"] == [PIXEL]
    assert user["content"].startswith("what is in")


def test_an_image_is_left_out_with_a_note_without_vision(project: Path, fake_server: Any) -> None:
    server = fake_server({"turns": [{"content": "cannot see"}]})
    _ask_with_image(project, server)
    user = server.chat_requests()[-1]["messages"][-1]
    assert "images" not in user
    assert "image" in user["content"] and "left out" in user["content"]

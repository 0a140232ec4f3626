"""`/paste` (issue 32, item 14): the clipboard's image rides on the next prompt to a local
vision model, as an OpenAI `image_url` part. A fake `wl-paste` on PATH plays the
clipboard; the fake server plays llama.cpp's `llama-server`, whose `/props` (or
`/v1/models`) says whether a vision projector is loaded."""

from __future__ import annotations

import base64
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from .conftest import connected, drive, idle, send, transcript_text, until

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))
CLIPBOARD = f"""#!{sys.executable}
import pathlib, sys
pathlib.Path(sys.argv[0]).with_name("ran").touch()
sys.stdout.buffer.write({PNG!r})
"""
PROPS = {"default_generation_settings": {"n_ctx": 32768}, "total_slots": 2}


@pytest.fixture
def clipboard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `wl-paste` that hands out PNG bytes (and leaves `ran` beside it); PATH finds it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "wl-paste"
    tool.write_text(CLIPBOARD)
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    return bin_dir


@pytest.mark.parametrize(
    "script",
    [
        {"props": {**PROPS, "modalities": {"vision": True}}},
        {"models": [{"name": "fake-model", "capabilities": ["completion", "multimodal"]}]},
    ],
    ids=["props", "v1-models"],
)
def test_a_pasted_image_reaches_a_vision_model_as_an_image_url_part(
    tui: Any, clipboard: Path, script: dict[str, Any]
) -> None:
    app, server = tui([{"content": "a red square"}], wire="openai", **script)

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/paste")
        await until(pilot, lambda: "image staged" in transcript_text(app), "the staging note")
        await send(pilot, "what is in this picture?")
        await until(pilot, lambda: "a red square" in transcript_text(app), "the answer")
        await idle(pilot)

    drive(app, scenario)
    user = server.chat_requests()[-1]["messages"][-1]
    encoded = base64.b64encode(PNG).decode()
    assert user["content"] == [
        {"type": "text", "text": "what is in this picture?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{encoded}"}},
    ]


def test_paste_refuses_a_model_without_vision_in_one_line(tui: Any, clipboard: Path) -> None:
    app, server = tui([{"content": "plain answer"}], wire="openai", props=PROPS)

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/paste")
        await until(pilot, lambda: "does not report vision" in transcript_text(app), "refusal")
        await send(pilot, "hello")
        await until(pilot, lambda: "plain answer" in transcript_text(app), "the answer")
        await idle(pilot)

    drive(app, scenario)
    assert not (clipboard / "ran").exists()  # the clipboard was not even read
    assert server.chat_requests()[-1]["messages"][-1]["content"] == "hello"


def test_paste_without_a_clipboard_tool_says_what_to_install(
    tui: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    props = {**PROPS, "modalities": {"vision": True}}
    app, _ = tui([], wire="openai", props=props)

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/paste")
        await until(pilot, lambda: "no clipboard tool" in transcript_text(app), "the hint")
        assert "wl-clipboard" in transcript_text(app) and "xclip" in transcript_text(app)

    drive(app, scenario)

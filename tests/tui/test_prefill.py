"""The TUI shows a long prompt's read as a progress line, and /stats its speed (issue 44)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from rift.frontends.tui.app import RiftApp

from .conftest import connected, drive, idle, make_config, send, transcript_text, until

LLAMA_PROPS = {"default_generation_settings": {"n_ctx": 32768}, "total_slots": 1}


def test_a_long_prompt_read_is_a_progress_line_and_its_speed_is_in_stats(
    project: Path, fake_server: Any
) -> None:
    progress = [[1024, 4096, 512, 500], [2048, 4096, 512, 1000], [4096, 4096, 512, 2000]]
    turn = {"prompt_progress": progress, "chunk_delay": 0.4, "content": "read it all"}
    server = fake_server({"wire": "openai", "props": LLAMA_PROPS, "turns": [turn]})
    app = RiftApp(make_config(project, f"{server.url}/v1"))
    phases: list[str] = []
    shown: list[str] = []

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "a long prompt")

        def reading() -> bool:
            phases.append(app.status_bar.state.phase)
            return "reading the prompt" in phases[-1]

        await until(pilot, reading, "the progress line")
        await idle(pilot)
        await send(pilot, "/stats")
        await until(pilot, lambda: "prompt reading" in transcript_text(app), "the stats")
        shown.append(transcript_text(app))

    drive(app, scenario)
    seen = [p for p in phases if p.startswith("reading the prompt")]
    assert seen[0] in (
        "reading the prompt 25% · 1,024 of 4,096 tokens (512 cached) · 1,024 tok/s",
        "reading the prompt 50% · 2,048 of 4,096 tokens (512 cached) · 1,536 tok/s",
    )
    assert "prompt reading (prefill): 1,792.0 tok/s (last long prompt)" in shown[0]

"""`/model ROLE NAME` in the TUI points a role at a model, as `/roles ROLE NAME` does."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from .conftest import connected, drive, send, transcript_text, until


def test_model_role_name_sets_the_role_and_roles_checks_it(tui: Any) -> None:
    models = [
        {"name": "fake-model", "capabilities": ["tools"], "context_length": 32768},
        {"name": "small-model", "capabilities": ["tools"], "context_length": 8192},
    ]
    app, server = tui(models=models)
    shown: list[str] = []

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/model fast small-model")
        await until(pilot, lambda: "role fast now uses small-model" in transcript_text(app), "set")
        await send(pilot, "/roles")
        await until(pilot, lambda: "model roles:" in transcript_text(app), "the roles")
        shown.append(transcript_text(app))

    drive(app, scenario)
    assert f"fast: small-model at {server.url} — served" in shown[0]
    assert f"main: fake-model at {server.url} — served" in shown[0]

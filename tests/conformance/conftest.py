"""Fixtures for the serve conformance suite: spawn `rift --serve` against the fake server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .serve_session import ServeSession


@pytest.fixture
def serve(project: Path) -> Iterator[Callable[..., ServeSession]]:
    """Factory: serve(server, *flags, cwd=, model=, startup=) → a running ServeSession.

    By default it waits for the startup `ready` and `context` events; pass
    startup=False to read them yourself. Leftover processes are killed.
    """
    started: list[ServeSession] = []

    def start(
        server: Any,
        *flags: str,
        cwd: Path | None = None,
        model: str = "fake-model",
        startup: bool = True,
    ) -> ServeSession:
        session = ServeSession(["--host", server.url, "-m", model, *flags], cwd or project)
        started.append(session)
        if startup:
            session.read_until("context")
        return session

    yield start
    for session in started:
        session.kill()

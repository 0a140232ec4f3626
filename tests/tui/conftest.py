"""Fixtures for the TUI tests: a RiftApp against the in-process fake model server.

Every test drives the real app with Textual's Pilot at 120×40. The helpers
here wait on what a person would see (widgets, their text, the status bar)
rather than sleeping; `drive` runs one async scenario to completion.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

pytest.importorskip("textual", reason="the TUI needs the 'tui' extra (textual)")

from textual.pilot import Pilot
from textual.widgets import Markdown, Static

from rift.config.load import Config, Overrides, load_config
from rift.frontends.tui.app import RiftApp
from rift.frontends.tui.widgets.transcript import PastReply

SIZE = (120, 40)
MODEL = "fake-model"
Scenario = Callable[[Pilot[Any]], Awaitable[None]]


def make_config(project: Path, host: str, **overrides: Any) -> Config:
    return load_config(os.environ, project, Overrides(host=host, model=MODEL, **overrides))


@pytest.fixture
def tui(project: Path, fake_server: Callable[[dict[str, Any]], Any]) -> Iterator[Any]:
    """Factory: tui(turns, **script) → (app, server), the app not yet running."""

    def make(
        turns: list[dict[str, Any]] | None = None,
        *,
        host: str | None = None,
        continue_last: bool = False,
        resume: Path | None = None,
        **script: Any,
    ) -> tuple[RiftApp, Any]:
        server = fake_server({"turns": turns or [], **script})
        config = make_config(project, host or server.url)
        return RiftApp(config, continue_last=continue_last, resume=resume), server

    yield make


def drive(app: RiftApp, scenario: Scenario, size: tuple[int, int] = SIZE) -> None:
    """Run the app headless and play `scenario` against it."""

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            app.composer.input.cursor_blink = False
            await scenario(pilot)

    asyncio.run(main())


async def until(
    pilot: Pilot[Any], predicate: Callable[[], Any], what: str, timeout: float = 10
) -> Any:
    """Let the app run until `predicate()` is truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            app = pilot.app
            assert isinstance(app, RiftApp)
            raise AssertionError(
                f"timed out waiting for {what}\n--- screen ---\n{screen_text(app)}"
            )
        await pilot.pause(0.02)


async def connected(pilot: Pilot[Any]) -> RiftApp:
    app = pilot.app
    assert isinstance(app, RiftApp)
    await until(pilot, lambda: app.driver.conversation is not None, "the model to bind")
    await until(pilot, lambda: app.status_bar.state.limit > 0, "the context gauge")
    return app


async def send(pilot: Pilot[Any], text: str) -> None:
    """Type `text` into the prompt (as one insert) and press Enter."""
    app = pilot.app
    assert isinstance(app, RiftApp)
    app.composer.input.insert(text)
    await pilot.pause()
    app.composer.close_palette()
    await pilot.press("enter")


async def idle(pilot: Pilot[Any]) -> None:
    """Wait until no turn is running and the status says ready."""
    app = pilot.app
    assert isinstance(app, RiftApp)
    await until(
        pilot,
        lambda: not app.driver.busy and app.status_bar.state.text == "ready",
        "the turn to finish",
    )


def widget_text(widget: Any) -> str:
    if isinstance(widget, (Markdown, PastReply)):
        return widget.source
    if isinstance(widget, Static):
        return str(widget.content)
    return ""


def transcript_text(app: RiftApp) -> str:
    parts = [widget_text(w) for w in app.transcript.query("Static, Markdown")]
    return "\n".join(p for p in parts if p)


def screen_text(app: RiftApp) -> str:
    """Everything visible-ish, for failure messages."""
    return "\n".join(
        [
            transcript_text(app),
            "--- activity ---",
            *app.activity.log_view.lines,
            f"--- status: {app.status_bar.state}",
        ]
    )


@pytest.fixture
def slow_proxy() -> Iterator[Callable[[str, float], str]]:
    """Factory: slow_proxy(url, delay) → a URL whose first `delay` seconds answer nothing.

    A real TCP proxy in front of the fake server: connections made during the
    delay wait (as a model server that is still loading would), then everything
    is relayed both ways. Used to hold the app in its "connecting" state.
    """
    servers: list[socket.socket] = []

    def start(url: str, delay: float) -> str:
        target = urlsplit(url)
        listener = socket.create_server(("127.0.0.1", 0))
        servers.append(listener)
        opened = time.monotonic()

        def pipe(src: socket.socket, dst: socket.socket) -> None:
            with contextlib.suppress(OSError):
                while data := src.recv(65536):
                    dst.sendall(data)
            with contextlib.suppress(OSError):
                dst.shutdown(socket.SHUT_WR)

        def serve(client: socket.socket) -> None:
            time.sleep(max(0.0, opened + delay - time.monotonic()))
            upstream = socket.create_connection((target.hostname or "", target.port or 80))
            threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
            pipe(client, upstream)

        def accept() -> None:
            with contextlib.suppress(OSError):
                while True:
                    client, _ = listener.accept()
                    threading.Thread(target=serve, args=(client,), daemon=True).start()

        threading.Thread(target=accept, daemon=True).start()
        return f"http://127.0.0.1:{listener.getsockname()[1]}"

    yield start
    for listener in servers:
        listener.close()

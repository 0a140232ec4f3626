"""One command registry, four surfaces: each offers what `rift.core.COMMANDS` says.

The TUI's `/help` and `/` palette, serve's `ready.commands` and ACP's
`available_commands` are read from the running faces (a Textual pilot, a real
`rift --serve`, a real ACP client) and compared with the registry's projection
for that face; the conversation commands every face carries (undo, rewind,
compact, clear) must be among them everywhere.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rift_bin import rift_command
from textual.pilot import Pilot

from rift.core import COMMANDS, for_face, parse_command, split_command

from .conftest import connected, drive, send, transcript_text, until

SHARED = {spec.name for spec in COMMANDS if {"tui", "acp"} <= spec.faces}


def _tui_help(tui: Any, project: Path, fake_server: Any) -> set[str]:
    app, _ = tui()
    shown: list[str] = []

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/help")
        await until(pilot, lambda: "Ctrl+L" in transcript_text(app), "/help")
        shown.append(transcript_text(app))

    drive(app, scenario)
    listed = shown[0].split("commands", 1)[1].split("\nkeys", 1)[0]
    return set(re.findall(r"^\s*/([a-z][a-z-]*)\b", listed, flags=re.M))


def _tui_palette(tui: Any, project: Path, fake_server: Any) -> set[str]:
    app, _ = tui()
    names: list[str] = []

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        palette = app.composer.palette
        await pilot.press("/")
        await until(pilot, lambda: palette.display, "the palette")
        for i in range(palette.option_count):
            names.append(str(palette.get_option_at_index(i).prompt).split()[0][1:])

    drive(app, scenario)
    return set(names)


def _serve_ready(tui: Any, project: Path, fake_server: Any) -> set[str]:
    server = fake_server({"turns": []})
    argv = [*rift_command(), "--serve", "--host", server.url, "-m", "fake-model"]
    proc = subprocess.run(argv, cwd=project, input="", capture_output=True, text=True, timeout=60)
    ready = json.loads(proc.stdout.splitlines()[0])
    assert ready["event"] == "ready"
    wire = set(ready["commands"])
    return {spec.name for spec in COMMANDS if spec.wire in wire}


def _acp_available(tui: Any, project: Path, fake_server: Any) -> set[str]:
    pytest.importorskip("acp")
    here = str(Path(__file__).resolve().parent.parent / "acp")
    if here not in sys.path:  # the ACP suite's own client harness, as its tests import it
        sys.path.insert(0, here)
    harness = importlib.import_module("acp_harness")
    server = fake_server({"turns": []})
    recorder = harness.Recorder()

    async def scenario() -> None:
        async with harness.connect(recorder, project, server) as rift:
            await rift.conn.new_session(cwd=str(project), mcp_servers=[])
            await recorder.wait_for(lambda: recorder.of("available_commands_update"))

    harness.run(scenario())
    (update,) = recorder.of("available_commands_update")
    return {c.name for c in update.available_commands}


EXPECTED = {
    "tui help": {spec.name for spec in for_face("tui")},
    "tui palette": {spec.name for spec in for_face("tui")},
    "serve ready.commands": {spec.name for spec in COMMANDS if spec.wire},
    "acp available_commands": {spec.name for spec in for_face("acp")},
}
SURFACES = {
    "tui help": _tui_help,
    "tui palette": _tui_palette,
    "serve ready.commands": _serve_ready,
    "acp available_commands": _acp_available,
}


@pytest.mark.parametrize("surface", list(SURFACES))
def test_every_face_offers_the_registry(
    surface: str, tui: Any, project: Path, fake_server: Any
) -> None:
    offered = SURFACES[surface](tui, project, fake_server)
    assert {"undo", "rewind", "compact", "clear", "retry", "share"} <= SHARED
    assert offered >= SHARED, f"{surface} lacks {SHARED - offered}"
    registry_names = {spec.name for spec in COMMANDS}
    assert offered & registry_names == EXPECTED[surface]


def test_one_parser_reads_every_spelling() -> None:
    assert split_command("/rewind 2") == ("rewind", "2")
    assert split_command("/skill:fix\nmulti line") == ("skill:fix", "multi line")
    assert split_command("please /help") is None
    rewind = parse_command("/rewind 2")
    assert rewind is not None and (rewind.name, rewind.argument, rewind.skill) == (
        "rewind",
        "2",
        False,
    )
    fix = parse_command("  /skill:fix the bug")
    assert fix is not None and (fix.name, fix.argument, fix.skill) == ("fix", "the bug", True)
    review = parse_command("/review the diff", skills={"review"})
    assert review is not None and review.skill and review.argument == "the diff"
    assert parse_command("/etc/hosts is broken") is None
    assert parse_command("/compact", names=()) is None  # serve: only skills expand

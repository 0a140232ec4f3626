"""SVG snapshots that pin the layout at 120×40: the chat, an approval picker, a hunk review.

The scenes are built from fixed events (not timed streams), so the pictures
are byte-stable. Regenerate after an intended change with

    RIFT_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/tui/test_snapshots.py

and look at the files (any browser shows them). Textual's SVG output changes
between its releases, so the comparison is skipped, with a reason, when the
installed Textual is not the one the files were made with.
"""

from __future__ import annotations

import os
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from rift.core.permissions.hunks import diff_segments, preview_diff
from rift.events import (
    Content,
    ContextGauge,
    Done,
    EditDiff,
    Plan,
    PlanItem,
    ToolResult,
    ToolStart,
    TurnStats,
)
from rift.frontends.tui.app import RiftApp
from rift.frontends.tui.screens.picker import PickerScreen
from rift.frontends.tui.screens.review import ReviewScreen
from rift.frontends.tui.widgets.toolcall import ToolCallLine

from .conftest import connected, drive, until

SNAPSHOTS = Path(__file__).parent / "snapshots"
VERSION_FILE = SNAPSHOTS / "textual-version.txt"
UPDATE = os.environ.get("RIFT_UPDATE_SNAPSHOTS") == "1"
OLD = "def total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n"
NEW = "def total(items):\n    return sum(items)\n"
REPLY = (
    "I simplified `total`:\n\n```python\ndef total(items):\n    return sum(items)\n```\n\n"
    "- **behaviour** is unchanged\n- the loop is gone\n"
)


def _check(app: RiftApp, name: str, tmp_path: Path) -> None:
    svg = app.export_screenshot(title="rift")
    expected = SNAPSHOTS / f"{name}.svg"
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        expected.write_text(svg, encoding="utf-8")
        VERSION_FILE.write_text(version("textual") + "\n", encoding="utf-8")
        return
    recorded = VERSION_FILE.read_text().strip() if VERSION_FILE.exists() else "(none)"
    if recorded != version("textual"):
        pytest.skip(f"snapshots were made with textual {recorded}, not {version('textual')}")
    actual = tmp_path / f"{name}.svg"
    actual.write_text(svg, encoding="utf-8")
    assert svg == expected.read_text(encoding="utf-8"), (
        f"{name} changed: compare {actual} with {expected} (RIFT_UPDATE_SNAPSHOTS=1 regenerates it)"
    )


async def _chat_scene(pilot: Pilot[Any]) -> RiftApp:
    app = await connected(pilot)
    app.transcript.add_user("simplify total() in stats.py")
    for event in (
        Plan(items=[PlanItem("read stats.py", True), PlanItem("simplify total", False)]),
        ToolStart(tool="read", args={"path": "stats.py"}),
        ToolResult(tool="read", ok=True, preview="     1\tdef total(items):"),
        ToolStart(tool="edit", args={"path": "stats.py", "old_string": "s = 0"}),
        ToolResult(tool="edit", ok=True, preview="edited stats.py (1 replacement)"),
        EditDiff(path="stats.py", added=1, removed=4, diff=preview_diff(OLD, NEW, 80)),
        ToolStart(tool="bash", args={"command": "python3 -m pytest -q"}),
        ToolResult(tool="bash", ok=True, preview="3 passed in 0.02s"),
        Content(text=REPLY),
        Done(stats=TurnStats(iterations=4, output_tokens=120, tokens_per_sec=42.5)),
        ContextGauge(used=13_500, limit=32_768),
    ):
        app.emit(event)
    await until(pilot, lambda: app.status_bar.state.used == 13_500, "the scene")
    await until(pilot, lambda: app.transcript.last_reply == REPLY, "the reply")
    await pilot.pause(0.2)
    return app


def test_chat_layout(tui: Any, tmp_path: Path) -> None:
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await _chat_scene(pilot)
        _check(app, "chat", tmp_path)

    drive(app, scenario)


def test_chat_at_80x24_with_an_open_tool_line(tui: Any, tmp_path: Path) -> None:
    """The narrow layout: no side pane, tool calls as lines, one of them opened."""
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await _chat_scene(pilot)
        lines = list(app.transcript.query(ToolCallLine))
        assert [line.summary for line in lines][-1] == "✓ bash python3 -m pytest -q"
        lines[-1].collapsed = False
        await until(pilot, lambda: "3 passed" in lines[-1].body_text, "the open line")
        app.transcript.scroll_end(animate=False)
        await pilot.pause(0.2)
        _check(app, "chat-80x24", tmp_path)

    drive(app, scenario, size=(80, 24))


def test_approval_picker_with_diff(tui: Any, tmp_path: Path) -> None:
    app, _ = tui()

    async def scenario(pilot: Pilot[Any]) -> None:
        await _chat_scene(pilot)
        choices = ["allow", "always allow edit this session", "always allow 'Edit(*.py)'", "deny"]
        app.push_screen(PickerScreen("Allow edit: stats.py", choices, preview_diff(OLD, NEW, 40)))
        await until(pilot, lambda: isinstance(app.screen, PickerScreen), "the picker")
        await pilot.pause(0.2)
        _check(app, "picker", tmp_path)

    drive(app, scenario)


def test_hunk_review(tui: Any, tmp_path: Path) -> None:
    app, _ = tui()
    old = "import os\n\n" + OLD + "\nprint(total([1, 2]))\n"
    new = "import os\nimport sys\n\n" + NEW + "\nprint(total([1, 2]), file=sys.stderr)\n"

    async def scenario(pilot: Pilot[Any]) -> None:
        await _chat_scene(pilot)
        app.push_screen(ReviewScreen(7, "write", "stats.py", diff_segments(old, new)))
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press("n")  # drop the first hunk, move to the second
        await pilot.pause(0.2)
        _check(app, "review", tmp_path)

    drive(app, scenario)

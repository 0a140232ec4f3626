"""/swarm, /worktrees, /merge and /undo of a merge in the TUI (Pilot, real git)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from .conftest import connected, drive, send, transcript_text, until

FIXED = "def add(a, b):\n    return a + b\n"
ORIGINAL = "def add(a, b):\n    raise NotImplementedError\n"


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_swarm_merge_undo_and_cleanup_from_the_prompt(tui: Any, project: Path) -> None:
    (project / "calc.py").write_text(ORIGINAL)
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "initial")
    write = {"name": "write", "arguments": {"path": "calc.py", "content": FIXED}}
    app, _ = tui([{"tool_calls": [write]}, {"content": "Added add."}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/swarm implement add --judge none")
        await until(pilot, lambda: "JUDGE: winner=none" in transcript_text(app), "the verdict")
        assert app.transcript.card("0-fake-model") is not None  # the candidate's card
        assert (project / "calc.py").read_text() == ORIGINAL  # untouched until /merge
        await until(pilot, lambda: not app.driver.busy, "the race to end")
        await send(pilot, "/worktrees")
        await until(pilot, lambda: "0-fake-model  " in transcript_text(app), "/worktrees")
        await send(pilot, "/merge 0-fake-model")
        await until(pilot, lambda: "merged 0-fake-model: calc.py" in transcript_text(app), "merge")
        assert (project / "calc.py").read_text() == FIXED
        await send(pilot, "/undo")
        await until(pilot, lambda: "restored to pre-turn state" in transcript_text(app), "undo")
        assert (project / "calc.py").read_text() == ORIGINAL
        await send(pilot, "/merge --cleanup")
        await until(pilot, lambda: "removed 1 swarm worktree" in transcript_text(app), "cleanup")
        await send(pilot, "/swarm --explore")
        await until(pilot, lambda: "usage: /swarm <task>" in transcript_text(app), "usage")

    drive(app, scenario)
    assert _git(project, "worktree", "list").count("\n") == 1


def _pane_text(screen: Any, index: int) -> str:
    from .conftest import widget_text

    views = screen.query(f"#candidate-{index} CandidateView")  # none while still mounting
    return "\n".join(widget_text(w) for view in views for w in view.query(Static))


def test_a_tab_per_candidate_follows_the_race_and_m_merges_the_selected(
    tui: Any, project: Path
) -> None:
    from rift.frontends.tui.screens.swarm import SwarmScreen

    (project / "calc.py").write_text(ORIGINAL)
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "initial")
    other = "def add(a, b):\n    return b + a\n"
    first = {"name": "write", "arguments": {"path": "calc.py", "content": FIXED}}
    second = [
        {"name": "write", "arguments": {"path": "calc.py", "content": other}},
        {"name": "write", "arguments": {"path": "notes.txt", "content": "why b + a\n"}},
    ]
    app, _ = tui(
        [
            {"tool_calls": [first], "delay_first_byte": 0.5},
            {"content": "Added add."},
            {"tool_calls": second},
            {"content": "Added add, the other way round."},
        ]
    )

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/swarm implement add --attempts 2 --judge none")
        await send(pilot, "/candidates")  # opened while the race runs: it follows it
        await until(pilot, lambda: isinstance(app.screen, SwarmScreen), "the swarm screen")
        screen = app.screen
        assert isinstance(screen, SwarmScreen)
        await until(pilot, lambda: len(screen.query("TabPane")) == 2, "a tab per candidate")
        await until(
            pilot,
            lambda: "JUDGE: winner=none" in str(screen.query_one("#swarm-title", Static).content),
            "the verdict",
        )
        await until(pilot, lambda: "+    return b + a" in _pane_text(screen, 1), "the patch")
        zero, one = _pane_text(screen, 0), _pane_text(screen, 1)
        assert "→ write calc.py" in zero and "+    return a + b" in zero
        assert "notes.txt" not in zero and "b + a" not in zero
        assert "→ write notes.txt" in one and "+why b + a" in one
        assert screen.selected == "0-fake-model"
        await pilot.press("right")
        await until(pilot, lambda: screen.selected == "1-fake-model", "the second tab")
        await pilot.press("m")
        await until(pilot, lambda: "merged 1-fake-model" in transcript_text(app), "the merge")
        assert app.screen is app.chat  # back in the chat, where the merge's outcome shows
        assert (project / "calc.py").read_text() == other
        assert (project / "notes.txt").read_text() == "why b + a\n"

    drive(app, scenario)


def test_the_swarm_screen_opened_before_a_race_grows_its_tabs(tui: Any, project: Path) -> None:
    from rift.frontends.tui.screens.swarm import SwarmScreen

    (project / "calc.py").write_text(ORIGINAL)
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "initial")
    write = {"name": "write", "arguments": {"path": "calc.py", "content": FIXED}}
    app, _ = tui([{"tool_calls": [write]}, {"content": "Added add."}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/candidates")
        await until(pilot, lambda: isinstance(app.screen, SwarmScreen), "the swarm screen")
        screen = app.screen
        assert "no swarm race yet" in str(screen.query_one("#swarm-empty", Static).content)
        app.run_command("/swarm implement add --judge none")  # as typed in the chat
        await until(pilot, lambda: screen.query("TabPane"), "the candidate's tab")
        await until(pilot, lambda: "+    return a + b" in _pane_text(screen, 0), "its patch")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.chat, "the chat")
        assert (project / "calc.py").read_text() == ORIGINAL  # Esc merges nothing

    drive(app, scenario)


def test_the_board_keeps_to_its_candidates_and_stops_a_cancelled_race() -> None:
    from rift.events import SubagentFinished, SubagentStarted, SwarmStarted
    from rift.frontends.tui.swarmboard import FINISHED, RUNNING, STOPPED, WAITING, SwarmBoard

    board = SwarmBoard()
    board.begin(SwarmStarted("task", ["0-m", "1-m", "2-m"]))
    assert not board.started(SubagentStarted("a1", "m", "a helper of the agent tool"))
    assert board.started(SubagentStarted("0-m", "m", "task"))
    assert board.finished(SubagentFinished("0-m", 2))
    assert board.started(SubagentStarted("1-m", "m", "task"))
    assert [e.state for e in board.entrants.values()] == [FINISHED, RUNNING, WAITING]
    assert board.stop()  # the race was cancelled
    assert [e.mark for e in board.entrants.values()] == ["●", "⊘", "⊘"]
    board.started(SubagentStarted("2-m", "m", "task"))  # lagged behind the cancel
    assert board.entrants["2-m"].state == STOPPED
    assert not board.stop()


def test_swarm_unquoted_test_cmd_runs_no_bare_interpreter(tui: Any, project: Path) -> None:
    """Issue 44: `/swarm … --test-cmd python3 check_calc.py` unquoted gave the tests judge a
    bare `python3`, which reads an empty stdin and exits 0: every candidate "passed". The
    race is refused before any worktree is made, saying to quote the command."""
    (project / "calc.py").write_text(ORIGINAL)
    (project / "check_calc.py").write_text("from calc import add\nassert add(1, 2) == 3\n")
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "initial")
    app, _ = tui([{"content": "never asked"}])

    async def scenario(pilot: Pilot[Any]) -> None:
        await connected(pilot)
        await send(pilot, "/swarm implement add --test-cmd python3 check_calc.py")
        await until(pilot, lambda: "bare interpreter" in transcript_text(app), "the refusal")
        assert "quote" in transcript_text(app)
        await until(pilot, lambda: not app.driver.busy, "the race to end")

    drive(app, scenario)
    assert _git(project, "worktree", "list").count("\n") == 1
    assert not (project / ".rift/worktrees").exists()

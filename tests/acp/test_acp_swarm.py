"""/swarm from an ACP editor: a plan entry and a tool call per candidate, the verdict
as the agent's message, then /merge, /undo and /worktrees (issue 33)."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import text_block
from acp_harness import Recorder, connect, run

ORIGINAL = "def add(a, b):\n    raise NotImplementedError\n"
FIXED = "def add(a, b):\n    return a + b\n"
OTHER = "def add(a, b):\n    return b + a\n"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def _repo(project: Path) -> None:
    (project / "calc.py").write_text(ORIGINAL)
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "initial")


def _write(path: str, content: str) -> dict[str, Any]:
    return {"name": "write", "arguments": {"path": path, "content": content}}


def test_swarm_shows_as_a_plan_and_a_tool_call_per_candidate(
    project: Path, fake_server: Any
) -> None:
    _repo(project)
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [_write("calc.py", FIXED)]},
                {"content": "Added add."},
                {"tool_calls": [_write("calc.py", OTHER), _write("notes.txt", "b + a\n")]},
                {"content": "Added add, the other way round."},
            ]
        }
    )
    recorder = Recorder()

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await recorder.wait_for(lambda: recorder.of("available_commands_update"))
            offered = {
                c.name: c for c in recorder.of("available_commands_update")[-1].available_commands
            }
            assert {"swarm", "merge", "worktrees"} <= set(offered)
            assert offered["swarm"].input is not None
            assert offered["swarm"].input.root.hint.startswith("<task>")

            async def say(text: str) -> str:
                recorder.updates.clear()
                done = await rift.conn.prompt(session_id=sid, prompt=[text_block(text)])
                assert done.stop_reason == "end_turn"
                return recorder.text()

            said = await say("/swarm implement add --attempts 2 --judge none")
            assert "JUDGE: winner=none" in said
            _check_plans(recorder.of("plan"))
            _check_calls(recorder.tool_calls(), project)

            assert "0-fake-model" in await say("/worktrees")
            assert "merged 1-fake-model: calc.py, notes.txt" in await say("/merge 1-fake-model")
            assert (project / "calc.py").read_text() == OTHER
            assert "calc.py" in await say("/undo")
            assert (project / "calc.py").read_text() == ORIGINAL
            assert not (project / "notes.txt").exists()
            assert git(project, "status", "--porcelain") == ""  # the index is back too
            assert "usage: /merge <name>" in await say("/merge")

    run(scenario(), timeout=120)


def _check_plans(plans: list[Any]) -> None:
    """pending → in_progress → completed per candidate, one entry each, in start order."""
    tables = [[(e.content, e.status) for e in plan.entries] for plan in plans]
    names = ["Candidate 0-fake-model", "Candidate 1-fake-model"]
    assert tables[0] == [(n, "pending") for n in names]
    assert [(names[0], "in_progress"), (names[1], "pending")] in tables
    assert [(names[0], "completed"), (names[1], "in_progress")] in tables
    assert tables[-1] == [(n, "completed") for n in names]


def _check_calls(calls: dict[str, list[Any]], project: Path) -> None:
    assert len(calls) == 2
    first, second = calls.values()
    assert first[0].session_update == "tool_call" and first[0].title == "Candidate 0-fake-model"
    assert first[0].status == "in_progress"
    live = [u for u in first[1:-1] if u.content]
    assert any("→ write calc.py" in u.content[0].content.text for u in live)
    final = first[-1]
    assert final.status == "completed"
    assert final.content[0].content.text.startswith("0-fake-model (fake-model): answered")
    (diff,) = [c for c in final.content if c.type == "diff"]
    assert (diff.path, diff.old_text, diff.new_text) == (str(project / "calc.py"), ORIGINAL, FIXED)
    diffs = {c.path: c for c in second[-1].content if c.type == "diff"}
    assert diffs[str(project / "calc.py")].new_text == OTHER
    created = diffs[str(project / "notes.txt")]
    assert created.old_text is None and created.new_text == "b + a\n"


def test_a_cancelled_swarm_fails_its_open_calls_and_answers_cancelled(
    project: Path, fake_server: Any
) -> None:
    _repo(project)
    slow = {"tool_calls": [_write("calc.py", FIXED)], "delay_first_byte": 30}
    server = fake_server({"turns": [slow, {"content": "never"}]})
    recorder = Recorder()

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            prompt = asyncio.create_task(
                rift.conn.prompt(session_id=sid, prompt=[text_block("/swarm add --judge none")])
            )
            await recorder.wait_for(lambda: recorder.tool_calls())
            await rift.conn.cancel(session_id=sid)
            done = await prompt
            assert done.stop_reason == "cancelled"
            (updates,) = recorder.tool_calls().values()
            assert updates[-1].status == "failed"
            assert "swarm cancelled" in recorder.text()

    run(scenario(), timeout=120)
    assert git(project, "worktree", "list").count("\n") == 1

"""bash: real subprocesses — output shape, timeouts and cancellation kill the whole group."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from tooldoubles import RecordingGate, call

from rift.errors import ToolError
from rift.tools.base import ToolContext, ToolOutput
from rift.tools.bash import TOOL as BASH
from rift.tools.bash import _is_server_like

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def _live_members(pgid: int) -> list[int]:
    """Pids in process group `pgid` that are not zombies."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry.name))
    return members


def _assert_group_gone(pgid: int) -> None:
    deadline = time.monotonic() + 5
    while _live_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _live_members(pgid) == []


def test_stdout_stderr_and_exit_code(ctx: ToolContext) -> None:
    out = call(BASH, ctx, command="echo out; echo err >&2; exit 3")
    assert out.text == "out\n\n--- stderr ---\nerr\n\n[exit code: 3]"
    assert not out.ok


def test_success_runs_in_cwd_with_no_stdin(proj: Path, ctx: ToolContext) -> None:
    out = call(BASH, ctx, command="pwd; cat")
    assert out.ok
    assert out.text == f"{proj}\n"


def test_no_output(ctx: ToolContext) -> None:
    assert call(BASH, ctx, command="true").text == "(no output)"


def test_ansi_and_control_characters_stripped(ctx: ToolContext) -> None:
    command = r"printf '\033[1;31mred\033[0m \033]0;title\007ok\r\n\tdone\n'"
    assert call(BASH, ctx, command=command).text == "red ok\n\tdone\n"


def test_output_middle_truncated(ctx: ToolContext) -> None:
    out = call(BASH, ctx, command="printf 'HEAD'; head -c 100000 /dev/zero | tr '\\0' a; echo TAIL")
    assert out.text.startswith("HEAD")
    assert out.text.rstrip().endswith("TAIL")
    assert "[output truncated: 30000 of 100009 bytes shown]" in out.text
    assert len(out.text.encode()) < 30_200


@needs_proc
def test_timeout_kills_whole_group(ctx: ToolContext) -> None:
    started = time.monotonic()
    out = call(BASH, ctx, command="echo $$; sleep 100 & sleep 100", timeout_secs=1)
    assert time.monotonic() - started < 10
    assert not out.ok
    assert "timed out after 1s" in out.text and "timeout_secs (max 300)" in out.text
    _assert_group_gone(int(out.text.split()[0]))


@needs_proc
def test_cancellation_kills_group_and_reraises(proj: Path, ctx: ToolContext) -> None:
    pidfile = proj / "pid"

    async def run_bash() -> ToolOutput:
        return await BASH.run({"command": f"echo $$ > {pidfile}; sleep 100 & sleep 100"}, ctx)

    async def scenario() -> int:
        task = asyncio.create_task(run_bash())
        for _ in range(200):
            if pidfile.exists() and pidfile.read_text().strip():
                break
            await asyncio.sleep(0.02)
        pgid = int(pidfile.read_text())
        assert _live_members(pgid)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return pgid

    _assert_group_gone(asyncio.run(scenario()))


def test_wrapper_rewrites_executed_command_only(
    proj: Path, ctx: ToolContext, gate: RecordingGate
) -> None:
    ctx.bash_wrapper = "sh -c {cmd} && echo wrapped in {cwd}"
    out = call(BASH, ctx, command="echo \"it's\" '{cwd}'")
    assert out.text == f"it's {{cwd}}\nwrapped in {proj}\n"
    assert gate.commands == ["echo \"it's\" '{cwd}'"]


def test_refusal_runs_nothing(proj: Path, ctx: ToolContext, gate: RecordingGate) -> None:
    gate.bash_refusal = "command blocked by permission policy: touch x"
    out = call(BASH, ctx, command="touch x")
    assert not out.ok and out.text == "command blocked by permission policy: touch x"
    assert not (proj / "x").exists()


class _Tasks:
    """Double of the background-task registry's `start_shell` interface."""

    def __init__(self) -> None:
        self.started: list[tuple[str, Path, str | None]] = []

    async def start_shell(self, command: str, cwd: Path, label: str | None = None) -> str:
        self.started.append((command, cwd, label))
        return f"started background task #1 (pid 42): {label or command}"


def test_background_uses_task_registry(proj: Path, ctx: ToolContext) -> None:
    tasks = _Tasks()
    ctx.services.tasks = tasks
    out = call(BASH, ctx, command="npm run dev", run_in_background=True)
    assert out.ok and out.text.startswith("started background task #1")
    assert tasks.started == [("npm run dev", proj, "npm run dev")]


def test_background_runs_wrapped_command_labelled_raw(proj: Path, ctx: ToolContext) -> None:
    tasks = _Tasks()
    ctx.services.tasks = tasks
    ctx.bash_wrapper = "sandbox -- sh -c {cmd}"
    call(BASH, ctx, command="echo 'hi'", run_in_background=True)
    executed = "sandbox -- sh -c 'echo '\\''hi'\\'''"
    assert tasks.started == [(executed, proj, "echo 'hi'")]


def test_background_unavailable(ctx: ToolContext, gate: RecordingGate) -> None:
    with pytest.raises(ToolError, match="background tasks are not available"):
        call(BASH, ctx, command="sleep 1", run_in_background="true")
    assert gate.commands == []


@pytest.mark.parametrize(
    "command",
    [
        "npm run dev",
        "yarn start",
        "pnpm dev",
        "npx vite",
        "python -m http.server 8000",
        "flask run --port 5000",
        "uvicorn app:app --reload",
        "tail -f log.txt",
        "tail -n 20 -f log.txt",
        "jest --watch",
        "nodemon server.js",
        "cd web && serve -s dist",
    ],
)
def test_server_like_commands(command: str) -> None:
    assert _is_server_like(command)


@pytest.mark.parametrize(
    "command",
    ["npm run build", "vite build", "pytest -q", "tail -n 5 log.txt", "npm test", "ls served"],
)
def test_not_server_like(command: str) -> None:
    assert not _is_server_like(command)


def test_environment_is_inherited(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RIFT_TOOL_TEST_VALUE", "visible")
    assert call(BASH, ctx, command="echo $RIFT_TOOL_TEST_VALUE").text == "visible\n"
    assert os.environ["RIFT_TOOL_TEST_VALUE"] == "visible"

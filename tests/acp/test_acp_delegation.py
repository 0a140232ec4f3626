"""fs/* and terminal/* delegation: when the editor offers them, rift reads and writes
through its buffers and runs commands in its terminals; otherwise the local tools run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import text_block
from acp_harness import Recorder, connect, run


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_files_go_through_the_editor_buffers(project: Path, fake_server: Any) -> None:
    on_disk = project / "notes.txt"
    on_disk.write_text("disk text\n")
    path = str(on_disk)
    server = fake_server(
        {
            "turns": [
                _call("read", path="notes.txt"),
                _call("edit", path="notes.txt", old_string="buffer", new_string="edited"),
                _call("write", path="new.txt", content="made by rift\n"),
                {"content": "done"},
            ]
        }
    )
    recorder = Recorder(
        answers=["allow_once", "allow_once"], buffers={path: "buffer text (unsaved)\n"}
    )

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            done = await rift.conn.prompt(session_id=sid, prompt=[text_block("edit notes")])
            assert done.stop_reason == "end_turn"

    run(scenario())
    assert path in recorder.reads
    assert recorder.writes == [
        (path, "edited text (unsaved)\n"),
        (str(project / "new.txt"), "made by rift\n"),
    ]
    assert on_disk.read_text() == "disk text\n"  # the editor owns the file now
    assert not (project / "new.txt").exists()
    read_result = server.chat_requests()[1]["messages"][-1]["content"]
    assert "buffer text (unsaved)" in read_result and "disk text" not in read_result
    edit = list(recorder.tool_calls().values())[1]
    diff = edit[-1].content[0]
    assert diff.old_text == "buffer text (unsaved)\n"
    assert diff.new_text == "edited text (unsaved)\n"
    assert edit[-1].locations[0].line == 1


def test_without_fs_the_local_disk_is_used(project: Path, fake_server: Any) -> None:
    (project / "notes.txt").write_text("disk text\n")
    server = fake_server({"turns": [_call("read", path="notes.txt"), {"content": "ok"}]})
    recorder = Recorder()

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.prompt(session_id=sid, prompt=[text_block("read")])

    run(scenario())
    assert recorder.reads == []
    assert "disk text" in server.chat_requests()[1]["messages"][-1]["content"]


def test_bash_runs_in_an_editor_terminal(project: Path, fake_server: Any) -> None:
    server = fake_server(
        {"turns": [_call("bash", command="echo from-terminal; exit 3"), {"content": "seen"}]}
    )
    recorder = Recorder(terminal=True)

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.set_session_mode(session_id=sid, mode_id="auto")
            await rift.conn.prompt(session_id=sid, prompt=[text_block("run it")])

    run(scenario())
    (terminal,) = recorder.terminals.values()
    assert terminal.command == "sh" and terminal.args == ["-c", "echo from-terminal; exit 3"]
    assert terminal.cwd == str(project) and terminal.released
    result = server.chat_requests()[1]["messages"][-1]["content"]
    assert "from-terminal" in result and "[exit code: 3]" in result
    (bash,) = recorder.tool_calls().values()
    shown = [c for u in bash if u.content for c in u.content]
    assert any(c.type == "terminal" and c.terminal_id == "term-1" for c in shown)
    assert bash[-1].status == "failed"

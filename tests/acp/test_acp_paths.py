"""fs/read_text_file and fs/write_text_file carry the path rift checked (symlinks resolved,
`..` folded after them), never the raw one (issue 30): an editor that folds `..` as
text (Node's path.resolve) would otherwise open a different, denied file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import text_block
from acp_harness import Recorder, connect, run


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_the_checked_path_is_what_the_editor_gets(project: Path, fake_server: Any) -> None:
    (project / "a/b").mkdir(parents=True)
    (project / "a/secrets").mkdir()
    (project / "secrets").mkdir()
    (project / "lnk").symlink_to("a/b")
    (project / "a/secrets/key.txt").write_text("inner file\n")
    (project / "secrets/key.txt").write_text("TOP SECRET\n")
    (project / ".rift.json").write_text(
        json.dumps({"permissions": {"deny": ["Read(secrets/**)", "Edit(secrets/**)"]}})
    )
    inner = os.path.realpath(project / "a/secrets/key.txt")
    notes = os.path.realpath(project / "a/notes.txt")
    raw_read = str(project / "lnk/../secrets/key.txt")
    buffers = {
        inner: "inner file\n",
        raw_read: "TOP SECRET\n",
        str(project / "secrets/key.txt"): "TOP SECRET\n",
    }
    server = fake_server(
        {
            "turns": [
                _call("read", path="lnk/../secrets/key.txt"),
                _call("write", path="lnk/../notes.txt", content="hello\n"),
                {"content": "done"},
            ]
        }
    )
    recorder = Recorder(answers=["allow_once", "allow_once"], buffers=buffers)

    async def scenario() -> None:
        async with connect(recorder, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            done = await rift.conn.prompt(session_id=sid, prompt=[text_block("go")])
            assert done.stop_reason == "end_turn"

    run(scenario())
    assert recorder.reads == [inner]
    assert [path for path, _ in recorder.writes] == [notes]
    assert all(".." not in path for path in recorder.reads + [p for p, _ in recorder.writes])
    read_result = server.chat_requests()[1]["messages"][-1]["content"]
    assert "TOP SECRET" not in read_result

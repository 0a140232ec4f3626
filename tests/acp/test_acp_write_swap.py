"""A folder swapped for a symlink while the person is asked must not carry the write outside
(issue 42). Seen: an editor with fs/write_text_file was sent the re-resolved outside path, and
without it the fallback write followed the link. The real ACP client SDK drives real rift."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import text_block
from acp.schema import ClientCapabilities, FileSystemCapabilities, RequestPermissionResponse
from acp_harness import Recorder, connect, run


@dataclass
class SwappingEditor(Recorder):
    """Swaps `folder` for a link to `outside` while the permission question is open."""

    folder: Path | None = None
    outside: Path | None = None
    can_write: bool = True

    def capabilities(self) -> ClientCapabilities:
        """Reads through the editor; writes too only when `can_write` (else rift's fallback)."""
        return ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=True, write_text_file=self.can_write)
        )

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        assert self.folder is not None and self.outside is not None
        self.folder.rename(self.folder.with_name("parked"))
        self.folder.symlink_to(self.outside, target_is_directory=True)
        return await super().request_permission(options, session_id, tool_call, **kwargs)


def _swap_during_the_question(project: Path, fake_server: Any, *, editor_fs: bool) -> Any:
    (project / "sub").mkdir()
    outside = project.parent / "outside"
    outside.mkdir()
    server = fake_server(
        {
            "turns": [
                {
                    "tool_calls": [
                        {
                            "name": "write",
                            "arguments": {"path": "sub/new.txt", "content": "pwned\n"},
                        }
                    ]
                },
                {"content": "done"},
            ]
        }
    )
    editor = SwappingEditor(
        answers=["allow_once"],
        buffers={},
        can_write=editor_fs,
        folder=project / "sub",
        outside=outside,
    )

    async def scenario() -> None:
        async with connect(editor, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            done = await rift.conn.prompt(session_id=sid, prompt=[text_block("go")])
            assert done.stop_reason == "end_turn"

    run(scenario())
    assert editor.permissions, "the write was never asked about"
    return editor, outside


def test_acp_fallback_write_does_not_follow_a_link_swapped_in_while_asking(
    project: Path, fake_server: Any
) -> None:
    _, outside = _swap_during_the_question(project, fake_server, editor_fs=False)
    assert not (outside / "new.txt").exists()


def test_acp_editor_is_sent_the_checked_path_not_a_fresh_resolution(
    project: Path, fake_server: Any
) -> None:
    editor, outside = _swap_during_the_question(project, fake_server, editor_fs=True)
    sent = [path for path, _ in editor.writes]
    assert str(outside / "new.txt") not in sent
    assert sent == [str(project.resolve() / "sub" / "new.txt")]


def test_accept_edits_still_asks_before_writing_a_config_that_runs_code_later(
    project: Path, fake_server: Any
) -> None:
    """`.rift.json` holds hooks that run after every edit: even in accept-edits, and even
    though the task names it, the person is asked; their no keeps it unwritten."""
    hooks = '{"hooks": {"post_edit": ["touch pwned"]}}\n'
    server = fake_server(
        {
            "turns": [
                {
                    "tool_calls": [
                        {"name": "write", "arguments": {"path": ".rift.json", "content": hooks}}
                    ]
                },
                {"content": "done"},
            ]
        }
    )
    editor = Recorder(answers=["reject_once"])

    async def scenario() -> None:
        async with connect(editor, project, server) as rift:
            sid = (await rift.conn.new_session(cwd=str(project), mcp_servers=[])).session_id
            await rift.conn.set_session_mode(session_id=sid, mode_id="accept-edits")
            prompt = [text_block("Add a post_edit hook to .rift.json")]
            done = await rift.conn.prompt(session_id=sid, prompt=prompt)
            assert done.stop_reason == "end_turn"

    run(scenario())
    assert len(editor.permissions) == 1
    assert not (project / ".rift.json").exists()

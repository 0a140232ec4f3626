"""write and edit against files that are ways out (issue 42): real `rift -p`, real HTTP to the
scripted fake server, real files and links."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rift_bin import run_rift

TEST_BEFORE = "from darts import score\n\n\ndef test_bull():\n    assert score(0, 0) == 10\n"


def tool_results(server: Any) -> list[str]:
    """The tool results rift sent back in its last chat request, in order."""
    messages = server.chat_requests()[-1]["messages"]
    return [m["content"] for m in messages if m["role"] == "tool"]


def _edit(path: str, old: str, new: str) -> dict[str, Any]:
    return {"name": "edit", "arguments": {"path": path, "old_string": old, "new_string": new}}


def _write(path: str, content: str) -> dict[str, Any]:
    return {"name": "write", "arguments": {"path": path, "content": content}}


def _run(fake_server: Any, project: Path, calls: list[dict[str, Any]], prompt: str) -> Any:
    server = fake_server(
        {"turns": [*({"tool_calls": [call]} for call in calls), {"content": "done"}]}
    )
    result = run_rift(["--host", server.url, "-m", "fake-model", "-p", prompt], project)
    assert result.returncode == 0, result.stderr
    return server


def test_a_symlink_named_like_the_task_does_not_unlock_the_test_it_points_to(
    project: Path, fake_server: Any
) -> None:
    """`helper.py -> darts_test.py`: the task names helper.py, the edit lands in the test."""
    (project / "darts.py").write_text("def score(x, y):\n    return 5\n")
    (project / "darts_test.py").write_text(TEST_BEFORE)
    (project / "helper.py").symlink_to("darts_test.py")
    server = _run(
        fake_server, project, [_edit("helper.py", "== 10", "== 5")], "Fix helper.py for darts"
    )
    assert (project / "darts_test.py").read_text() == TEST_BEFORE
    [text] = tool_results(server)
    assert text.startswith("ERROR: edit refused: darts_test.py is a test file"), text


def test_a_symlink_named_like_the_task_does_not_unlock_a_protected_folder(
    project: Path, fake_server: Any
) -> None:
    (project / "build").mkdir()
    (project / "build" / "gen.py").write_text("VALUE = 1\n")
    (project / "gen_link.py").symlink_to("build/gen.py")
    server = _run(
        fake_server, project, [_edit("gen_link.py", "VALUE = 1", "VALUE = 2")], "fix gen_link.py"
    )
    assert (project / "build" / "gen.py").read_text() == "VALUE = 1\n"
    [text] = tool_results(server)
    assert text.startswith("ERROR: edit refused:") and "build/" in text, text

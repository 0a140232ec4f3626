"""write and edit against files that are ways out (issue 42): real `rift -p`, real HTTP to the
scripted fake server, real files and links."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
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
    """`helper.py -> darts_test.py`: once the checks judge by darts_test.py it is locked,
    and an edit through a link with another name still lands on the locked file: refused."""
    (project / "darts.py").write_text("def score(x, y):\n    return 5\n")
    (project / "darts_test.py").write_text(TEST_BEFORE)
    (project / "helper.py").symlink_to("darts_test.py")
    calls = [_edit("darts.py", "return 5", "return 6"), _edit("helper.py", "== 10", "== 5")]
    server = fake_server(
        {"turns": [*({"tool_calls": [call]} for call in calls), {"content": "done"}]}
    )
    args = ["--host", server.url, "-m", "fake-model", "-p", "Fix helper.py for darts"]
    result = run_rift(args, project)
    assert result.returncode in (0, 5), result.stderr
    assert (project / "darts_test.py").read_text() == TEST_BEFORE
    texts = [m["content"] for m in server.chat_requests()[2]["messages"] if m["role"] == "tool"]
    assert any(t.startswith("ERROR: edit refused: darts_test.py holds the tests") for t in texts), (
        texts
    )


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


RUNS_LATER = [
    (".git", "gitdir: evilgit\n"),
    ("sub/.git", "gitdir: ../evilgit\n"),
    (".git/hooks/pre-commit", "#!/bin/sh\ntouch pwned\n"),
    (".git/config", "[core]\n\thooksPath = evil\n"),
    (".gitattributes", "* filter=x\n"),
    ("docs/.gitattributes", "*.md diff=evil\n"),
    (".rift.json", '{"hooks": {"post_edit": ["touch pwned"]}}\n'),
    (".mcp.json", '{"mcpServers": {"x": {"command": "touch", "args": ["pwned"]}}}\n'),
    (".vscode/tasks.json", '{"tasks": [{"label": "x", "command": "touch pwned"}]}\n'),
    (".rift/plugins/x/plugin.json", '{"name": "x"}\n'),
]


def _user_config(project: Path, data: dict[str, Any]) -> None:
    user = project.parent / "home/.config/rift/config.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps(data))


@pytest.mark.parametrize(("rel", "content"), RUNS_LATER)
def test_write_refuses_a_file_that_runs_code_later_unless_the_task_names_it(
    project: Path, fake_server: Any, rel: str, content: str
) -> None:
    """Seen with bash denied: write alone planted a `.git` file holding `gitdir: evilgit`
    and a `* filter=x` that rift's own `git add` then ran. An allow rule does not lift it."""
    _user_config(project, {"permissions": {"allow": ["Write(**)", "Edit(**)"]}})
    server = _run(fake_server, project, [_write(rel, content)], "tidy up the git setup")
    assert not (project / rel).exists()
    [text] = tool_results(server)
    assert text.startswith("ERROR: write refused:") and "names the file by its path" in text


@pytest.mark.parametrize(("rel", "content"), RUNS_LATER[2:])
def test_a_named_file_that_runs_code_later_still_needs_a_person_unless_auto(
    project: Path, fake_server: Any, rel: str, content: str
) -> None:
    (project / ".git/hooks").mkdir(parents=True)
    server = _run(fake_server, project, [_write(rel, content)], f"Update {rel} as discussed")
    assert not (project / rel).is_file()
    [text] = tool_results(server)
    assert text.startswith("ERROR:") and "needs the person's yes" in text, text
    _user_config(project, {"permissions": {"approve": False}})  # mode auto
    _run(fake_server, project, [_write(rel, content)], f"Update {rel} as discussed")
    assert (project / rel).read_text() == content


def test_gitattributes_without_a_driver_is_an_ordinary_file(
    project: Path, fake_server: Any
) -> None:
    _run(fake_server, project, [_write(".gitattributes", "*.png binary\n")], "mark pngs")
    assert (project / ".gitattributes").read_text() == "*.png binary\n"


def test_edit_refuses_adding_a_filter_driver_to_gitattributes(
    project: Path, fake_server: Any
) -> None:
    (project / ".gitattributes").write_text("*.png binary\n")
    server = _run(
        fake_server, project, [_edit(".gitattributes", "binary", "filter=x")], "mark pngs"
    )
    assert (project / ".gitattributes").read_text() == "*.png binary\n"
    [text] = tool_results(server)
    assert text.startswith("ERROR: edit refused:"), text

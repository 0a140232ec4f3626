"""rift never edits build output, virtualenvs, installed packages or .git unless asked (issue 29).

Run as the README's first command once was, in a folder without the file the
task named, the embedded model went looking and spent minutes editing
`build/lib/rift/frontends/tui/widgets/status.py`, rift's own build output.
write and edit now refuse such paths with a result the model can act on,
unless the user's task names them. Real `rift -p`, real HTTP to the scripted
fake server, real files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rift_bin import run_rift

PROTECTED = [
    "build/lib/pkg/status.py",
    ".venv/lib/python3.11/site-packages/x.py",
    "venv/bin/tool.py",
    "lib/site-packages/pkg/mod.py",
    "web/node_modules/left/pad.py",
    ".git/hooks/helper.py",
]


def tool_results(server: Any) -> list[str]:
    """The tool results rift sent back in its last chat request, in order."""
    messages = server.chat_requests()[-1]["messages"]
    return [m["content"] for m in messages if m["role"] == "tool"]


@pytest.mark.parametrize("rel", PROTECTED)
def test_edit_and_write_refused_under_generated_or_vendored_folders(
    project: Path, fake_server: Any, rel: str
) -> None:
    target = project / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("VALUE = 1\n")
    server = fake_server(
        {
            "turns": [
                {
                    "tool_calls": [
                        {
                            "name": "edit",
                            "arguments": {
                                "path": rel,
                                "old_string": "VALUE = 1",
                                "new_string": "VALUE = 2",
                            },
                        }
                    ]
                },
                {"tool_calls": [{"name": "write", "arguments": {"path": rel, "content": "X\n"}}]},
                {"content": "could not change it"},
            ]
        }
    )
    result = run_rift(
        ["--host", server.url, "-m", "fake-model", "-p", "set VALUE to 2 in status.py"], project
    )
    assert result.returncode == 0, result.stderr
    assert target.read_text() == "VALUE = 1\n"
    edit_result, write_result = tool_results(server)
    top = rel.split("/")[0] if "site-packages" not in rel else "site-packages"
    for text in (edit_result, write_result):
        assert text.startswith("ERROR:") and "refused" in text, text
        assert top in text, text  # it says which folder, so the model can look elsewhere


def test_the_user_naming_the_path_allows_it(project: Path, fake_server: Any) -> None:
    target = project / "build" / "gen.py"
    target.parent.mkdir()
    target.write_text("VALUE = 1\n")
    server = fake_server(
        {
            "turns": [
                {
                    "tool_calls": [
                        {
                            "name": "edit",
                            "arguments": {
                                "path": "build/gen.py",
                                "old_string": "VALUE = 1",
                                "new_string": "VALUE = 2",
                            },
                        }
                    ]
                },
                {"content": "done"},
            ]
        }
    )
    prompt = "In build/gen.py set VALUE to 2"
    result = run_rift(
        ["--host", server.url, "-m", "fake-model", "-p", prompt, "--output-format", "json"],
        project,
    )
    assert result.returncode == 0, result.stderr
    assert target.read_text() == "VALUE = 2\n"
    assert json.loads(result.stdout.strip().splitlines()[-1])["reply"] == "done"


def test_a_source_file_named_like_a_protected_folder_is_not_protected(
    project: Path, fake_server: Any
) -> None:
    (project / "build.py").write_text("VALUE = 1\n")
    server = fake_server(
        {
            "turns": [
                {
                    "tool_calls": [
                        {
                            "name": "edit",
                            "arguments": {
                                "path": "build.py",
                                "old_string": "VALUE = 1",
                                "new_string": "VALUE = 2",
                            },
                        }
                    ]
                },
                {"content": "done"},
            ]
        }
    )
    result = run_rift(["--host", server.url, "-m", "fake-model", "-p", "set VALUE to 2"], project)
    assert result.returncode == 0, result.stderr
    assert (project / "build.py").read_text() == "VALUE = 2\n"


TEST_BEFORE = "from darts import score\n\n\ndef test_bull():\n    assert score(0, 0) == 10\n"
RETRY_PROMPT = (
    "FAILED darts_test.py::test_bull - assert 5 == 10\n\nSee the test errors above.\n"
    "The tests are correct; do not change them.\nFix the code in darts.py so that they pass."
)


def _edit_the_test(fake_server: Any) -> Any:
    return fake_server(
        {
            "turns": [
                {
                    "tool_calls": [
                        {
                            "name": "edit",
                            "arguments": {
                                "path": "darts_test.py",
                                "old_string": "== 10",
                                "new_string": "== 5",
                            },
                        }
                    ]
                },
                {"content": "done"},
            ]
        }
    )


def test_a_test_file_is_not_rewritten_to_pass(project: Path, fake_server: Any) -> None:
    """Seen on the Exercism slice: after "The tests are correct; do not change them" the
    1.5B model changed darts_test.py's expected value. Once the checks judge the change to
    darts.py by darts_test.py, the test is locked, whatever the task's words say."""
    (project / "darts.py").write_text("def score(x, y):\n    return 5\n")
    (project / "darts_test.py").write_text(TEST_BEFORE)
    fix = {"path": "darts.py", "old_string": "return 5", "new_string": "return 6"}
    cheat = {"path": "darts_test.py", "old_string": "== 10", "new_string": "== 5"}
    turns = [{"tool_calls": [{"name": "edit", "arguments": a}]} for a in (fix, cheat)]
    server = fake_server({"turns": [*turns, {"content": "done"}]})
    result = run_rift(["--host", server.url, "-m", "fake-model", "-p", RETRY_PROMPT], project)
    assert result.returncode in (0, 5), result.stderr
    assert (project / "darts_test.py").read_text() == TEST_BEFORE
    texts = [m["content"] for m in server.chat_requests()[2]["messages"] if m["role"] == "tool"]
    assert any(t.startswith("ERROR: edit refused: darts_test.py holds the tests") for t in texts)


@pytest.mark.parametrize(
    "prompt",
    ["In darts_test.py expect 5 for the bull", "update the tests: the bull now scores 5"],
)
def test_a_task_that_asks_for_test_changes_gets_them(
    project: Path, fake_server: Any, prompt: str
) -> None:
    (project / "darts_test.py").write_text(TEST_BEFORE)
    server = _edit_the_test(fake_server)
    result = run_rift(["--host", server.url, "-m", "fake-model", "-p", prompt], project)
    assert result.returncode in (0, 5), result.stderr  # 5: the changed test now fails
    assert "score(0, 0) == 5" in (project / "darts_test.py").read_text()

"""A rename is not done while the old name is still used (issue 29).

Real `rift -p`, real HTTP to the scripted fake server, real files. The scripted
"model" renames only the `def`, as the embedded model did, then says done: the
edit's result must say what is left (not "give your final answer now"), and
before the turn may end rift feeds the leftover back once; the model's
`replace_all` rename then changes every use of the name and nothing else.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rift_bin import run_rift

UTIL = 'def f(x):\n    return 2 * x\n\n\nprint(f(21), f"{21}")\n'


def edit(old: str, new: str, replace_all: bool = False) -> dict[str, Any]:
    arguments: dict[str, Any] = {"path": "util.py", "old_string": old, "new_string": new}
    if replace_all:
        arguments["replace_all"] = True
    return {"tool_calls": [{"name": "edit", "arguments": arguments}]}


def sent(server: Any, n: int) -> str:
    """Every message content of the n-th chat request, joined."""
    return "\n".join(str(m.get("content")) for m in server.chat_requests()[n]["messages"])


def test_a_half_done_rename_is_fed_back_before_the_turn_ends(
    project: Path, fake_server: Any
) -> None:
    (project / "util.py").write_text(UTIL)
    server = fake_server(
        {
            "turns": [
                edit("def f(x):", "def double(x):"),
                {"content": "Renamed f to double."},
                edit("f", "double", replace_all=True),
                {"content": "Renamed f to double, call included."},
            ]
        }
    )
    prompt = "Rename the function f to double in util.py, including its call."
    result = run_rift(["--host", server.url, "-m", "fake-model", "-p", prompt], project)
    assert result.returncode == 0, result.stderr
    after_edit = sent(server, 1)
    assert "Not done yet: line 5 of util.py still uses `f`" in after_edit
    assert "replace_all true" in after_edit and "give your final answer now" not in after_edit
    assert "[system] Not done yet" in sent(server, 2)  # fed back when the model said done
    text = (project / "util.py").read_text()
    assert text == 'def double(x):\n    return 2 * x\n\n\nprint(double(21), f"{21}")\n'
    run = subprocess.run([sys.executable, "util.py"], cwd=project, capture_output=True, text=True)
    assert run.stdout.strip() == "42 21"
    assert len(server.chat_requests()) == 4


def test_a_complete_edit_ends_the_turn_without_a_check_round(
    project: Path, fake_server: Any
) -> None:
    (project / "util.py").write_text(UTIL)
    server = fake_server(
        {"turns": [edit("f", "double", replace_all=True), {"content": "Renamed."}]}
    )
    result = run_rift(["--host", server.url, "-m", "fake-model", "-p", "rename f"], project)
    assert result.returncode == 0, result.stderr
    assert "double(21)" in (project / "util.py").read_text()
    assert "Not done yet" not in sent(server, 1)
    assert len(server.chat_requests()) == 2


def _has_pytest() -> bool:
    probe = subprocess.run(["python3", "-c", "import pytest"], capture_output=True)
    return probe.returncode == 0


CALC = "def add(a, b):\n    return a - b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


@pytest.mark.skipif(not _has_pytest(), reason="python3 on PATH has no pytest")
def test_the_named_test_file_runs_once_and_its_failure_goes_back(
    project: Path, fake_server: Any
) -> None:
    (project / "calc.py").write_text(CALC)
    (project / "tests").mkdir()
    (project / "tests" / "test_calc.py").write_text("import sys\nsys.path.insert(0, '.')\n" + TEST)
    wrong = {"path": "calc.py", "old_string": "a - b", "new_string": "a * b"}
    right = {"path": "calc.py", "old_string": "a * b", "new_string": "a + b"}
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [{"name": "edit", "arguments": wrong}]},
                {"content": "Fixed add."},
                {"tool_calls": [{"name": "edit", "arguments": right}]},
                {"content": "Fixed add, really."},
            ]
        }
    )
    prompt = "Fix add in calc.py so that tests/test_calc.py passes."
    result = run_rift(["--host", server.url, "-m", "fake-model", "-p", prompt], project)
    assert result.returncode == 0, result.stderr
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    fed_back = sent(server, 2)
    assert "python3 -m pytest -x -q tests/test_calc.py" in str(
        server.chat_requests()[2]["messages"]
    )
    assert "[exit code: 1]" in fed_back and "The check after your change failed" in fed_back
    assert len(server.chat_requests()) == 4  # checked once: the second "done" ends the turn


SHAPES = (
    "def area(width, height):\n    return width * height\n\n\n"
    'def describe(width, height):\n    return f"{width}x{height}: area {area(width, height)}"\n'
)


def test_a_rewrite_that_renames_nothing_is_not_taken_for_the_rename(
    project: Path, fake_server: Any
) -> None:
    """Seen on the tiny tier: the 1.5B model sent shapes.py back whole with a comment added
    and the blank lines gone, and the turn ended as a success."""
    (project / "shapes.py").write_text(SHAPES)
    echo = "# shapes.py\n" + SHAPES.replace("\n\n\n", "\n\n")
    write = {"name": "write", "arguments": {"path": "shapes.py", "content": echo}}
    rename = {"path": "shapes.py", "old_string": "area(", "new_string": "rect_area(",
              "replace_all": True}  # fmt: skip
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [write]},
                {"content": "Renamed."},
                {"tool_calls": [{"name": "edit", "arguments": rename}]},
                {"content": "Renamed, call included."},
            ]
        }
    )
    prompt = (
        "Rename the function area in shapes.py to rect_area, and update the place that calls it."
    )
    result = run_rift(["--host", server.url, "-m", "fake-model", "-p", prompt], project)
    assert result.returncode == 0, result.stderr
    fed_back = sent(server, 2)
    assert "The task renames `area` to `rect_area`, but no file you changed has `rect_area`" in (
        fed_back
    )
    text = (project / "shapes.py").read_text()
    assert "def rect_area(" in text and "{rect_area(width, height)}" in text
    assert len(server.chat_requests()) == 4


def test_an_added_function_that_never_came_is_fed_back(project: Path, fake_server: Any) -> None:
    (project / "mathx.py").write_text("def double(x):\n    return 2 * x\n")
    wrong = {"path": "mathx.py", "old_string": "2 * x", "new_string": "x + x"}
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [{"name": "edit", "arguments": wrong}]},
                {"content": "Added square."},
                {"content": "Sorry, done now."},
            ]
        }
    )
    prompt = "Add a function square(x) that returns x * x to mathx.py."
    result = run_rift(["--host", server.url, "-m", "fake-model", "-p", prompt], project)
    assert result.returncode == 0, result.stderr
    assert "asks to add `square`, but no file you changed defines `square`" in sent(server, 2)
    assert len(server.chat_requests()) == 3  # fed back once, never twice


@pytest.mark.parametrize(
    ("prompt", "fed_back"),
    [
        ("Make greet in hello.py say hi.", True),
        ("Add a comment above greet in hello.py.", False),  # layout is the task
    ],
)
def test_a_change_that_moved_only_layout_is_not_the_task(
    project: Path, fake_server: Any, prompt: str, fed_back: bool
) -> None:
    (project / "hello.py").write_text("def greet():\n    return 'hello'\n")
    layout = {"path": "hello.py", "old_string": "def greet", "new_string": "# greet\ndef greet"}
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [{"name": "edit", "arguments": layout}]},
                {"content": "Done."},
                {"content": "Done, really."},
            ]
        }
    )
    result = run_rift(["--host", server.url, "-m", "fake-model", "-p", prompt], project)
    assert result.returncode == 0, result.stderr
    requests = server.chat_requests()
    assert len(requests) == (3 if fed_back else 2)
    assert ("moved only blank lines, comments or layout" in sent(server, len(requests) - 1)) is (
        fed_back
    )


def test_the_forms_a_task_names_are_read_from_its_words() -> None:
    from rift.core.loop import taskcheck

    assert taskcheck.renames("Rename the function area in shapes.py to rect_area.") == [
        ("area", "rect_area")
    ]
    assert taskcheck.renames("rename `f` to `double`, including its call") == [("f", "double")]
    assert taskcheck.renames("Rename variable x to total_count") == [("x", "total_count")]
    assert taskcheck.renames("Fix the rename logic in util.py") == []
    assert taskcheck.added_names("Add a function square(x) that returns x * x") == ["square"]
    assert taskcheck.added_names("add a new class called Stack to s.py") == ["Stack"]
    assert taskcheck.added_names("Add type hints to every function") == []

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

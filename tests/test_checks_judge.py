"""The project's own checks judge a change, in rounds (core/loop/parts/checks.py).

Real `rift -p`, real HTTP to the scripted fake server, the real bash tool running
the project's real tests. Nothing here reads the task's words: the tests are found
by the files (`<module>_test.py`, Exercism's and many projects' convention, which
the check before this one never found), and the wording of the prompts is German.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rift_bin import run_rift

CALC = "def add(a, b):\n    return a - b\n\n\ndef double(x):\n    return x\n"
TEST = (
    "import unittest\n\nfrom calc import add, double\n\n\n"
    "class CalcTest(unittest.TestCase):\n"
    "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n"
    "    def test_add_zero(self):\n        self.assertEqual(add(0, 3), 3)\n\n"
    "    def test_double(self):\n        self.assertEqual(double(4), 8)\n"
)
PROMPT = "Bitte repariere calc.py."  # no English keyword anywhere


def edit(old: str, new: str) -> dict[str, Any]:
    args = {"path": "calc.py", "old_string": old, "new_string": new}
    return {"tool_calls": [{"name": "edit", "arguments": args}]}


def sent(server: Any, n: int) -> str:
    return json.dumps(server.chat_requests()[n]["messages"], ensure_ascii=False)


def project_with_tests(project: Path) -> None:
    (project / "calc.py").write_text(CALC)
    (project / "calc_test.py").write_text(TEST)


def rift_p(project: Path, server: Any, *extra: str) -> Any:
    args = ["--host", server.url, "-m", "fake-model", "-p", PROMPT, *extra]
    return run_rift([*args, "--output-format", "json"], project, timeout=90)


def test_a_module_test_beside_the_changed_module_runs_and_its_failure_goes_back(
    project: Path, fake_server: Any
) -> None:
    project_with_tests(project)
    server = fake_server(
        {
            "turns": [
                edit("a - b", "a + b"),
                {"content": "Fertig."},
                edit("return x\n", "return 2 * x\n"),
                {"content": "Jetzt wirklich fertig."},
            ]
        }
    )
    run = rift_p(project, server)
    assert run.returncode == 0, run.stderr
    assert (project / "calc.py").read_text() == CALC.replace("a - b", "a + b").replace(
        "return x\n", "return 2 * x\n"
    )
    fed_back = sent(server, 2)
    assert "calc_test.py" in fed_back and "test_double" in fed_back
    assert "The project's checks ran after your change: 1 failed, 2 passed" in fed_back
    result = json.loads(run.stdout)
    assert result["checks"]["ok"] is True and result["checks"]["passed"] == 3
    assert len(server.chat_requests()) == 4


def test_a_run_whose_checks_still_fail_exits_5_and_says_which(
    project: Path, fake_server: Any
) -> None:
    project_with_tests(project)
    server = fake_server({"turns": [edit("a - b", "a + b"), {"content": "Fertig."}]})
    run = rift_p(project, server)
    assert run.returncode == 5, run.stderr
    result = json.loads(run.stdout)
    checks = result["checks"]
    assert checks["ok"] is False and checks["failed"] == 1 and checks["passed"] == 2
    assert any("test_double" in name for name in checks["failing"])
    assert "calc_test.py" in checks["command"]
    assert "checks still fail" in result["reply"] and "test_double" in result["reply"]
    # the failure went back once; the next round changed nothing, so the rounds ended
    assert len(server.chat_requests()) == 3
    assert "1 failed, 2 passed" in sent(server, 2)


def test_a_round_that_makes_things_worse_is_rolled_back_to_the_best_version(
    project: Path, fake_server: Any
) -> None:
    project_with_tests(project)
    best = CALC.replace("a - b", "a + b")
    server = fake_server(
        {
            "turns": [
                edit("a - b", "a + b"),  # 2 of 3 pass
                {"content": "Fertig."},
                edit("return a + b", "return None"),  # 0 of 3 pass: worse
                {"content": "Fertig."},
            ]
        }
    )
    run = rift_p(project, server)
    assert (project / "calc.py").read_text() == best, run.stderr
    assert "put back the best version" in run.stderr
    result = json.loads(run.stdout)
    assert result["checks"]["passed"] == 2 and result["checks"]["failed"] == 1
    assert run.returncode == 5


def test_the_judging_test_file_cannot_be_rewritten_to_pass(project: Path, fake_server: Any) -> None:
    project_with_tests(project)
    cheat = {"path": "calc_test.py", "old_string": "8)", "new_string": "4)"}
    server = fake_server(
        {
            "turns": [
                edit("a - b", "a + b"),
                {"content": "Fertig."},
                {"tool_calls": [{"name": "edit", "arguments": cheat}]},
                {"content": "Fertig."},
            ]
        }
    )
    run = rift_p(project, server)
    assert (project / "calc_test.py").read_text() == TEST, run.stderr
    assert "holds the tests rift checks this change with" in sent(server, 3)


def test_a_task_that_only_writes_tests_may_change_them(project: Path, fake_server: Any) -> None:
    """The lock is a fact of the run, not of the task's words: before any check judged by
    a test file, changing it is an ordinary edit."""
    project_with_tests(project)
    (project / "calc.py").write_text(CALC.replace("a - b", "a + b").replace("x\n", "2 * x\n"))
    more = "8)\n        self.assertEqual(double(0), 0)"
    add = {"path": "calc_test.py", "old_string": "8)", "new_string": more}
    server = fake_server(
        {"turns": [{"tool_calls": [{"name": "edit", "arguments": add}]}, {"content": "ok"}]}
    )
    run = rift_p(project, server)
    assert run.returncode == 0, run.stderr
    assert "double(0)" in (project / "calc_test.py").read_text()


def test_tests_run_with_unittest_where_pytest_is_missing(tmp_path: Path) -> None:
    from rift.checks import discover

    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").symlink_to("/usr/bin/false")  # a python without pytest
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "calc_test.py").write_text(TEST)
    command = discover.command_for([tmp_path / "calc.py"], tmp_path)
    assert command == f"{venv / 'python'} -m unittest calc_test.py"


def test_the_conventions_people_use_are_found(tmp_path: Path) -> None:
    from rift.checks import discover

    (tmp_path / "pkg").mkdir()
    (tmp_path / "tests").mkdir()
    for name in ("pkg/parse.py", "tests/test_parse.py", "pkg/parse_test.py"):
        (tmp_path / name).write_text("")
    found = discover.tests_for(tmp_path / "pkg" / "parse.py", tmp_path)
    assert found == [tmp_path / "pkg" / "parse_test.py", tmp_path / "tests" / "test_parse.py"]
    (tmp_path / "package.json").write_text('{"scripts": {"test": "node t.js"}}')
    assert discover.npm_test(tmp_path / "package.json")
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    assert "-m pytest" in (discover.project_command(tmp_path) or "")


def test_the_counts_of_each_runner_are_read() -> None:
    from rift.checks.results import count_tests, failing_tests

    assert count_tests("Ran 5 tests in 0.01s\n\nFAILED (failures=2, errors=1)\n") == (2, 3)
    assert count_tests("===== 1 failed, 4 passed in 0.1s =====") == (4, 1)
    assert count_tests("test result: FAILED. 3 passed; 1 failed;") == (3, 1)
    out = "FAILED calc_test.py::CalcTest::test_double - AssertionError: 4 != 8\n"
    assert failing_tests(out) == ("calc_test.py::CalcTest::test_double",)
    assert failing_tests("FAIL: test_double (calc_test.CalcTest)\n") == (
        "calc_test.CalcTest.test_double",
    )


TWO_FER = "def two_fer(name):\n    pass\n"
TWO_FER_TEST = (
    "import unittest\n\nfrom two_fer import two_fer\n\n\n"
    "class TwoFerTest(unittest.TestCase):\n"
    "    def test_name(self):\n"
    "        self.assertEqual(two_fer('Alice'), 'One for Alice, one for me.')\n"
)
SOLVED = 'def two_fer(name="you"):\n    return f"One for {name}, one for me."\n'
SMALL_SERVER = {
    "models": [{"name": "qwen2.5-coder:1.5b", "capabilities": ["tools"], "context_length": 32768}],
    "turns": [{"content": f"```python\n{SOLVED}```"}],
}


def test_a_small_model_given_a_german_task_gets_the_whole_file_format(
    project: Path, fake_server: Any
) -> None:
    """The format is the model's and the file's: a German task with no English keyword
    (the old switch keyed on "fix", "add", "change" …) gets the whole-file request, and
    one request solves the exercise."""
    (project / "two_fer.py").write_text(TWO_FER)
    (project / "two_fer_test.py").write_text(TWO_FER_TEST)
    server = fake_server(SMALL_SERVER)
    prompt = "Löse die Übung mit den Anweisungen oben in two_fer.py."
    args = ["--host", server.url, "-m", "qwen2.5-coder:1.5b", "-p", prompt]
    run = run_rift([*args, "--output-format", "json"], project, timeout=90)
    assert run.returncode == 0, run.stderr
    first = server.chat_requests()[0]["messages"]
    assert first[-1]["content"].startswith("[system] Rewrite two_fer.py whole:")
    assert (project / "two_fer.py").read_text() == SOLVED
    assert len(server.chat_requests()) == 1
    assert json.loads(run.stdout)["checks"]["ok"] is True


def test_a_lone_exercise_file_is_asked_for_whole_when_the_task_names_none(
    project: Path, fake_server: Any
) -> None:
    (project / "two_fer.py").write_text(TWO_FER)
    (project / "two_fer_test.py").write_text(TWO_FER_TEST)
    server = fake_server(SMALL_SERVER)
    args = ["--host", server.url, "-m", "qwen2.5-coder:1.5b", "-p", "解决这个练习。"]
    run = run_rift([*args, "--output-format", "json"], project, timeout=90)
    assert run.returncode == 0, run.stderr
    assert (project / "two_fer.py").read_text() == SOLVED
    assert "Changed two_fer.py" in json.loads(run.stdout)["reply"]

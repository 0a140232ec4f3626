"""Smoke tests for bench/: the task harness, the fixtures, and `bench/run.py --quick`.

They prove the tools work end to end (no crash, every row printed, the fake
task solved and counted); they assert nothing about the figures themselves,
which depend on the machine.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
TASKS = BENCH / "tasks"

ROW_KEYS = [
    "python_pass",
    "version",
    "import_rift.models",
    "import_rift.cli",
    "import_rift.frontends.serve",
    "serve_ready",
    "serve_libraries",
    "task_first_request",
    "task_exit",
    "task_total",
    "task_peak_rss",
    "req_system_bytes",
    "req_tools_bytes",
    "req_total_bytes",
    "serve_deltas_per_s",
    "iter_gross_ms",
    "iter_overhead_ms",
    "segments_50",
    "segments_cap",
    "session_load",
    "session_resume_extra",
]


def _load(name: str, path: Path) -> ModuleType:
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(path.parent))


run_tasks = _load("bench_run_tasks", TASKS / "run_tasks.py")
FIXTURES = run_tasks.all_tasks()


def test_suite_has_enough_tasks() -> None:
    assert len(FIXTURES) >= 20
    for name in FIXTURES:
        folder = TASKS / "fixtures" / name
        assert (folder / "prompt.txt").read_text().strip(), name
        assert "python3" in (folder / "verify.sh").read_text(), name


def test_fake_task_run_records_one_solved_task(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    run = subprocess.run(
        [
            sys.executable,
            str(TASKS / "run_tasks.py"),
            "--fake",
            "--tasks",
            run_tasks.FAKE_TASK,
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, run.stdout
    result = lines[0]
    assert result["task"] == run_tasks.FAKE_TASK
    assert result["ok"] is True, run.stderr
    assert result["prompt_tokens"] > 0
    assert result["output_tokens"] > 0
    assert result["llm_calls"] == 3
    assert result["secs"] > 0
    assert [json.loads(line) for line in out.read_text().splitlines()] == lines


@pytest.mark.parametrize("name", FIXTURES)
def test_verify_fails_on_unmodified_fixture(name: str, tmp_path: Path) -> None:
    repo = run_tasks.copy_fixture(name, tmp_path / "repo")
    assert not (repo / "verify.sh").exists() and not (repo / "prompt.txt").exists()
    passed, output = run_tasks.verify(name, repo)
    assert not passed, f"verify.sh passes before the fix:\n{output}"


@pytest.mark.parametrize("name", FIXTURES)
def test_verify_passes_on_reference_solution(name: str, tmp_path: Path) -> None:
    overlay = run_tasks.SOLUTIONS / name
    assert overlay.is_dir(), f"no reference solution for {name}"
    repo = run_tasks.copy_fixture(name, tmp_path / "repo", overlay=overlay)
    passed, output = run_tasks.verify(name, repo)
    assert passed, f"verify.sh fails on the reference solution:\n{output}"


TINY = run_tasks.all_tasks("tiny")


def test_the_tiny_tier_has_at_least_15_single_file_tasks() -> None:
    assert len(TINY) >= 15
    for name in TINY:
        folder = run_tasks.fixtures("tiny") / name
        project = [p for p in folder.iterdir() if p.name not in run_tasks.TASK_FILES]
        assert len(project) == 1, (name, project)
        assert "intact.py" in (folder / "verify.sh").read_text(), name


@pytest.mark.parametrize("name", TINY)
def test_tiny_verify_fails_before_and_passes_after(name: str, tmp_path: Path) -> None:
    before = run_tasks.copy_fixture(name, tmp_path / "before", tier="tiny", git=True)
    assert not run_tasks.verify(name, before, "tiny")[0]
    overlay = run_tasks.solutions("tiny") / name
    after = run_tasks.copy_fixture(name, tmp_path / "after", overlay=overlay, tier="tiny", git=True)
    passed, output = run_tasks.verify(name, after, "tiny")
    assert passed, output
    assert run_tasks.damaged_files(after) == []


def test_a_tiny_task_done_with_collateral_damage_fails_and_is_counted(tmp_path: Path) -> None:
    name = "add_docstring"
    overlay = run_tasks.solutions("tiny") / name
    repo = run_tasks.copy_fixture(name, tmp_path / "repo", overlay=overlay, tier="tiny", git=True)
    (repo / "calc").mkdir()
    (repo / "calc" / "calc.py").write_text("<tool_response>\n    1\tdef add(a, b):\n")
    passed, output = run_tasks.verify(name, repo, "tiny")
    assert not passed
    assert "damaged: calc/calc.py changed, but the task is about calc.py" in output
    assert "calc/calc.py does not parse" in output
    assert run_tasks.damaged_files(repo) == ["calc/calc.py"]


def test_a_file_broken_by_the_run_counts_as_damaged(tmp_path: Path) -> None:
    repo = run_tasks.copy_fixture("add_docstring", tmp_path / "repo", tier="tiny", git=True)
    (repo / "calc.py").write_text("def add(a, b):\nreturn a + b\n")
    assert run_tasks.damaged_files(repo) == ["calc.py"]
    (repo / "calc.py").unlink()
    assert run_tasks.damaged_files(repo) == ["calc.py"]


@pytest.mark.timeout(300)
def test_run_quick_prints_every_row(tmp_path: Path) -> None:
    results = tmp_path / "latest.json"
    run = subprocess.run(
        [sys.executable, str(BENCH / "run.py"), "--quick", "--json", str(results)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    doc = json.loads(results.read_text())
    rows = {row["key"]: row for row in doc["rows"]}
    assert list(rows) == ROW_KEYS
    for row in rows.values():
        assert row["label"] in run.stdout, row["label"]
        assert isinstance(row["value"], int | float)
    assert rows["req_total_bytes"]["value"] > 0
    assert rows["serve_deltas_per_s"]["value"] > 0
    for header in ("machine:", "CPUs", "Python", "goals missed:"):
        assert header in run.stdout
    assert doc["machine"]["nproc"] >= 1


# ------------------------------------------------- bench/exercism.py, the aider method

EXERCISES_JSON = {
    "practice": [
        {"slug": "greet", "difficulty": 2},
        {"slug": "add-one", "difficulty": 1},
        {"slug": "hard-one", "difficulty": 9},
    ]
}
ADD_ONE_TEST = (
    "import unittest\n\nfrom add_one import add_one\n\n\n"
    "class AddOneTest(unittest.TestCase):\n"
    "    def test_adds_one(self):\n        self.assertEqual(add_one(1), 2)\n"
)
GREET_TEST = (
    "import unittest\n\nfrom greet import greet\n\n\n"
    "class GreetTest(unittest.TestCase):\n"
    "    def test_greets(self):\n        self.assertEqual(greet('Ann'), 'Hello, Ann!')\n"
)


def _exercise(root: Path, slug: str, test: str, docs: dict[str, str]) -> None:
    """One practice exercise laid out as exercism/python ships it, read-only like the data."""
    module = slug.replace("-", "_")
    folder = root / "practice" / slug
    (folder / ".meta").mkdir(parents=True)
    (folder / ".docs").mkdir()
    (folder / f"{module}.py").write_text(f"def {module}(value):\n    pass\n")
    (folder / f"{module}_test.py").write_text(test)
    files = {"solution": [f"{module}.py"], "test": [f"{module}_test.py"]}
    (folder / ".meta" / "config.json").write_text(json.dumps({"files": files}))
    (folder / ".meta" / "example.py").write_text("the reference solution: never shown\n")
    for name, text in docs.items():
        (folder / ".docs" / name).write_text(text)
    for path in [*folder.rglob("*"), folder]:
        path.chmod(0o555 if path.is_dir() else 0o444)


def _write(path: str, content: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "write", "arguments": {"path": path, "content": content}}]}


def _exercism_script() -> dict[str, object]:
    """add-one: a wrong solution plus doctored instructions (a damaged file; rift refuses to
    change the test file itself), no fix when rift's checks send the failure back within the
    turn (the rounds end), then the fix on the second try; greet: right the first
    time (its requests are told apart by `match`)."""
    greet = "def greet(name):\n    return f'Hello, {name}!'\n"
    return {
        "models": [{"name": "fake-model", "capabilities": ["tools"], "context_length": 8192}],
        "wire": "openai",
        "turns": [
            {"match": "Say hello to someone", **_write("greet.py", greet)},
            {"match": "Say hello to someone", "content": "Done.", "repeat": 5},
            _write("add_one.py", "def add_one(value):\n    return value\n"),
            _write(".docs/instructions.md", "Return the value.\n"),
            {"content": "Done."},
            {"content": "Done."},  # after rift's own checks sent the failure back: no change
            _write("add_one.py", "def add_one(value):\n    return value + 1\n"),
            {"content": "Done.", "repeat": 5},
        ],
    }


@pytest.mark.timeout(180)
def test_exercism_runs_the_aider_method_against_the_fake_server(tmp_path: Path) -> None:
    from fakes.fake_server import FakeModelServer

    root = tmp_path / "exercism-python"
    root.mkdir()
    (root / "exercises.json").write_text(json.dumps(EXERCISES_JSON))
    _exercise(root, "greet", GREET_TEST, {"instructions.md": "Say hello to someone.\n"})
    _exercise(
        root,
        "add-one",
        ADD_ONE_TEST,
        {"introduction.md": "Counting.\n", "instructions.md": "Return the value plus one.\n"},
    )
    _exercise(root, "hard-one", ADD_ONE_TEST, {"instructions.md": "Never picked.\n"})
    save = tmp_path / "results" / "exercism.txt"
    save.parent.mkdir()
    fake = FakeModelServer(_exercism_script()).start()
    try:
        run = subprocess.run(
            [
                sys.executable,
                str(BENCH / "exercism.py"),
                *("--exercises", str(root), "--limit", "2", "--agents", "rift-server"),
                *("--server-url", fake.url + "/v1", "--model", "fake-model", "--timeout", "60"),
                *("--save", str(save)),
            ],
            capture_output=True,
            text=True,
            timeout=170,
        )
        requests = [r for r in fake.requests() if r.get("_path", "").endswith("completions")]
    finally:
        fake.stop()
    assert run.returncode == 0, run.stdout + run.stderr
    rows = [json.loads(line) for line in save.with_suffix(".jsonl").read_text().splitlines()]
    assert [r["exercise"] for r in rows] == ["add-one", "greet"]  # easiest first, --limit 2
    add_one, greet = rows
    assert (add_one["pass1"], add_one["pass2"], add_one["tries"]) == (False, True, 2)
    assert add_one["damaged_files"] == [".docs/instructions.md"]
    assert (greet["pass1"], greet["pass2"], greet["tries"], greet["damaged"]) == (True, True, 1, 0)
    assert add_one["llm_calls"] + greet["llm_calls"] == len(requests)
    # where rift's time went, summed over the tries from its JSON stats (issue 45)
    assert add_one["timing"]["requests"] + greet["timing"]["requests"] == len(requests)
    assert all(r["timing"]["decode_tokens"] > 0 and r["timing"]["tool_ms"] >= 0 for r in rows)
    assert all(r["prompt_tokens"] > 0 and r["secs"] > 0 for r in rows)
    first = json.dumps(requests[0])
    assert "Counting." in first and "Return the value plus one." in first
    assert "add_one.py" in first and "reference solution" not in first
    retry = next(json.dumps(r) for r in requests if "See the test errors above" in json.dumps(r))
    assert "AssertionError: 1 != 2" in retry  # the restored test's failure, fed back
    table = save.read_text()
    assert table == run.stdout
    labels = ("pass@1", "pass@2", "files damaged", "model requests", "prompt tokens")
    for label in (*labels, "prefill s", "cached prompt tokens", "decode s", "tool s"):
        assert label in table
    summary = {
        line.split()[0]: line.split()[-1] for line in table.splitlines() if line.startswith("pass@")
    }
    assert summary == {"pass@1": "1/2", "pass@2": "2/2"}
    assert "add-one (1)" in table and "pass@2" in table.split("add-one (1)")[1]
    assert "network: not isolated (--server-url)" in table


@pytest.mark.timeout(120)
def test_side_by_side_scores_a_task_tier_against_the_fake_server(tmp_path: Path) -> None:
    from fakes.fake_server import FakeModelServer

    save = tmp_path / "side.txt"
    with FakeModelServer(run_tasks.fake_script()) as fake:
        run = subprocess.run(
            [
                sys.executable,
                str(TASKS / "aider_side_by_side.py"),
                *("--tier", "full", "--tasks", run_tasks.FAKE_TASK, "--agents", "rift-server"),
                *("--server-url", fake.url + "/v1", "--model", run_tasks.FAKE_MODEL),
                *("--timeout", "60", "--save", str(save)),
            ],
            capture_output=True,
            text=True,
            timeout=110,
        )
    assert run.returncode == 0, run.stdout + run.stderr
    (row,) = [json.loads(line) for line in save.with_suffix(".jsonl").read_text().splitlines()]
    assert (row["agent"], row["task"], row["ok"], row["damaged"]) == (
        "rift-server",
        run_tasks.FAKE_TASK,
        True,
        0,
    )
    assert row["llm_calls"] == 3 and row["prompt_tokens"] > 0
    summary = [line.split() for line in save.read_text().splitlines()]
    assert ["tasks", "passed", "1/1"] in summary and ["files", "damaged", "0"] in summary


def test_exercism_reads_an_exercism_python_checkout_easiest_first(tmp_path: Path) -> None:
    """The track's own layout: exercises/practice/<slug>/ and config.json's difficulties."""
    (tmp_path / "exercises").mkdir()
    for slug in ("greet", "add-one", "hard-one"):
        _exercise(tmp_path / "exercises", slug, ADD_ONE_TEST, {"instructions.md": "x\n"})
    track = {"exercises": {"practice": [*EXERCISES_JSON["practice"], {"slug": "gone"}]}}
    (tmp_path / "config.json").write_text(json.dumps(track))
    run = subprocess.run(
        [sys.executable, str(BENCH / "exercism.py"), "--exercises", str(tmp_path), "--list"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[:3] == ["add-one 1", "greet 2", "hard-one 9"]
    bad = subprocess.run(
        [sys.executable, str(BENCH / "exercism.py"), "--exercises", str(tmp_path / "none")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "no practice/ or exercises/practice/" in bad.stderr

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

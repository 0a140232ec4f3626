"""A swarm candidate escaping through git, end to end: the real `rift swarm`, the
fake server playing the candidate, real git. The candidate plants a filter whose
command would run when rift's own (unsandboxed) capture does `git add -A`; it
must never run, and the candidate's real change must still be captured."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

MODEL = "fake-model"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture(autouse=True)
def repo(harness: Any) -> Path:
    project: Path = harness.project
    (project / "calc.py").write_text("x = 1\n")
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "initial")
    return project


def write(path: str, content: str) -> dict[str, Any]:
    return {"name": "write", "arguments": {"path": path, "content": content}}


def swarm(harness: Any, turns: list[Any], env: dict[str, str] | None = None) -> Any:
    server = harness.server(turns)
    args = ["swarm", "change calc.py", "--host", server.url, "-m", MODEL, "--judge", "none"]
    return subprocess.run(
        [sys.executable, "-m", "rift", *args, "--no-tui"],
        cwd=harness.project,
        capture_output=True,
        text=True,
        timeout=120,
        env=env or dict(os.environ),
        check=False,
    )


@pytest.mark.parametrize("sandbox", [False, True], ids=["plain", "bwrap"])
def test_a_candidates_git_init_and_filter_do_not_run_in_rifts_capture(
    harness: Any, repo: Path, tmp_path: Path, sandbox: bool
) -> None:
    if sandbox:
        if shutil.which("bwrap") is None:
            pytest.skip("bwrap is not installed")
        harness.write_config({"permissions": {"sandbox": "bwrap"}})
    marker = tmp_path / "filter-ran"
    plant = (
        "rm -f .git && git init -q"
        f" && git config filter.x.clean 'touch {marker}; cat'"
        " && echo '* filter=x' > .gitattributes"
    )
    turns = [
        {"tool_calls": [write("calc.py", "x = 2\n")]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": plant}}]},
        {"content": "done"},
    ]
    env = dict(os.environ, OPENAI_API_KEY="sk-never-for-git")
    run = swarm(harness, turns, env)
    assert run.returncode == 0, run.stderr
    assert not marker.exists(), run.stderr
    patch = (repo / ".rift/patches/0-fake-model.patch").read_text()
    assert "+x = 2" in patch


def test_a_git_file_written_with_bash_denied_is_not_used_by_the_capture(
    harness: Any, repo: Path, tmp_path: Path
) -> None:
    harness.write_config({"permissions": {"deny": ["Bash"]}})
    marker = tmp_path / "filter-ran"
    evil_config = (
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
        f'[filter "x"]\n\tclean = "touch {marker}; cat"\n'
    )
    calls = [
        write("calc.py", "x = 3\n"),
        write("evilgit/HEAD", "ref: refs/heads/main\n"),
        write("evilgit/config", evil_config),
        write(".gitattributes", "* filter=x\n"),
        write(".git", "gitdir: evilgit\n"),
    ]
    run = swarm(harness, [{"tool_calls": calls}, {"content": "done"}])
    assert run.returncode == 0, run.stderr
    assert not marker.exists(), run.stderr
    patch = (repo / ".rift/patches/0-fake-model.patch").read_text()
    assert "+x = 3" in patch


@pytest.mark.parametrize("folder", ["worktrees", "patches"])
def test_a_committed_rift_link_makes_swarm_refuse_not_write_outside(
    harness: Any, repo: Path, tmp_path: Path, folder: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "theirs.patch").write_text("not rift's\n")
    (repo / ".rift").mkdir()
    (repo / ".rift" / folder).symlink_to(outside)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", f"a committed .rift/{folder} link")
    run = swarm(harness, [{"tool_calls": [write("calc.py", "x = 4\n")]}, {"content": "done"}])
    assert run.returncode != 0
    assert "symlink" in run.stderr and "Traceback" not in run.stderr
    assert sorted(p.name for p in outside.iterdir()) == ["theirs.patch"]
    assert (outside / "theirs.patch").read_text() == "not rift's\n"

"""`rift swarm` and `rift merge` end to end: the real CLI, real git worktrees, the
project's real tests, and the scripted fake server playing every candidate (and the
chat judge) in turn. Candidates run one at a time, so the script's turns are served
in candidate order: 0's turns first, then 1's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from rift_bin import rift_command

MODEL = "fake-model"
BROKEN = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
FIXED_LONG = "def add(a, b):\n    # the sum\n    total = a + b\n    return total\n"
TESTS = """from calc import add


def test_add():
    assert add(2, 3) == 5


def test_zero():
    assert add(-1, 1) == 0
"""
JUDGE_MATCH = "judge of a race"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def make_repo(project: Path) -> None:
    (project / "calc.py").write_text("def add(a, b):\n    raise NotImplementedError\n")
    (project / "test_calc.py").write_text(TESTS)
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "initial")


def candidate(content: str, summary: str, extra: list[dict[str, Any]] | None = None) -> list[Any]:
    """One candidate's turns: write calc.py (plus `extra` calls), then a summary. A broken
    calc.py fails the after-edit check (test_calc.py beside it, run once before the turn
    ends: core/loop/aftercheck.py), which asks once more: the candidate answers again."""
    calls = [{"name": "write", "arguments": {"path": "calc.py", "content": content}}]
    turns: list[Any] = [{"tool_calls": calls + (extra or [])}, {"content": summary}]
    if content == BROKEN:
        turns.append({"content": summary})
    return turns


def worktree_paths(project: Path) -> list[str]:
    out = git(project, "worktree", "list", "--porcelain")
    return [line.split(" ", 1)[1] for line in out.splitlines() if line.startswith("worktree ")]


@pytest.fixture(autouse=True)
def pytest_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests judge finds `pytest` on PATH, as in a developer's shell."""
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", bin_dir + os.pathsep + os.environ.get("PATH", ""))


def swarm(harness: Any, server: Any, *extra: str, timeout: float = 120) -> Any:
    args = ["swarm", "implement add in calc.py", "--host", server.url, "-m", MODEL, *extra]
    return harness.cli([*args, "--no-tui"], timeout=timeout)


def test_tests_judge_picks_the_passing_candidate_and_merge_applies_it(harness: Any) -> None:
    project = harness.project
    make_repo(project)
    noise = "mkdir -p __pycache__ && echo x > __pycache__/calc.cpython-311.pyc && echo y > old.pyc"
    pycache = {"name": "bash", "arguments": {"command": noise}}
    server = harness.server(
        candidate(BROKEN, "Implemented add.")
        + candidate(FIXED, "Implemented add correctly.", [pycache])
    )
    run = swarm(harness, server, "--attempts", "2", "--judge", "tests")
    assert run.returncode == 0, run.stderr
    assert "JUDGE: winner=1-fake-model" in run.stdout.splitlines()
    rows = {line.lstrip("* ").split()[0]: line for line in run.stdout.splitlines()[1:-1]}
    assert "FAIL 0/2" in rows["0-fake-model"] and "pass 2/2" in rows["1-fake-model"]
    assert rows["1-fake-model"].startswith("*")
    # The person's tree is untouched until the merge; the race's files are excluded.
    assert "NotImplementedError" in (project / "calc.py").read_text()
    assert git(project, "status", "--porcelain") == ""
    exclude = (project / ".git/info/exclude").read_text().splitlines()
    assert ".rift/worktrees/" in exclude and ".rift/patches/" in exclude
    assert not (project / ".rift/swarm.lock").exists()
    winner_patch = (project / ".rift/patches/1-fake-model.patch").read_text()
    assert "+    return a + b" in winner_patch
    assert (project / ".rift/worktrees/1-fake-model/old.pyc").is_file()
    assert "pyc" not in winner_patch and "__pycache__" not in winner_patch

    merged = harness.cli(["merge", "1-fake-model"])
    assert merged.returncode == 0, merged.stderr
    assert (project / "calc.py").read_text() == FIXED
    assert "merged 1-fake-model: 1 file(s)" in merged.stdout
    assert len(worktree_paths(project)) == 3  # the worktrees stay until --cleanup

    cleaned = harness.cli(["merge", "--cleanup"])
    assert cleaned.returncode == 0, cleaned.stderr
    assert worktree_paths(project) == [str(project)]
    assert not (project / ".rift/worktrees").exists()
    assert (project / "calc.py").read_text() == FIXED


def test_no_candidate_passing_means_no_winner(harness: Any) -> None:
    make_repo(harness.project)
    server = harness.server(candidate(BROKEN, "Done.") + candidate(BROKEN, "Done too."))
    run = swarm(harness, server, "--attempts", "2", "--judge", "tests")
    assert run.returncode == 1, run.stderr
    assert "JUDGE: winner=none" in run.stdout
    assert "no candidate's patch passes the tests" in run.stderr


def _judged(harness: Any, reply: str, *judges: str, first: str = BROKEN) -> Any:
    make_repo(harness.project)
    turns = candidate(first, "Implemented add.") + candidate(FIXED_LONG, "Implemented add.")
    turns.append({"match": JUDGE_MATCH, "content": reply})
    server = harness.server(turns)
    judge_args = [arg for judge in judges for arg in ("--judge", judge)]
    run = swarm(harness, server, "--attempts", "2", *judge_args)
    judge_requests = [r for r in server.requests() if JUDGE_MATCH in str(r.get("messages"))]
    return run, judge_requests


def test_chat_judge_picks_from_its_winner_line(harness: Any) -> None:
    reply = "Candidate 1 returns the sum; candidate 0 subtracts.\n**WINNER:** `1-fake-model`"
    run, requests = _judged(harness, reply, MODEL)
    assert run.returncode == 0, run.stderr
    assert "JUDGE: winner=1-fake-model" in run.stdout
    assert len(requests) == 1
    shown = requests[0]["messages"][-1]["content"]
    assert "# Candidate 0-fake-model" in shown and "# Candidate 1-fake-model" in shown
    assert "-    raise NotImplementedError" in shown and "+    return a - b" in shown
    assert not requests[0].get("tools")


def test_chat_judge_none_means_no_winner(harness: Any) -> None:
    run, requests = _judged(harness, "Neither is right.\nWINNER: none", MODEL)
    assert len(requests) == 1
    assert run.returncode == 1
    assert "JUDGE: winner=none" in run.stdout
    assert "the chat judge answered none" in run.stderr


def test_chat_judge_malformed_answer_picks_nobody(harness: Any) -> None:
    run, _ = _judged(harness, "I think the second one is better.", MODEL)
    assert run.returncode == 1
    assert "JUDGE: winner=none" in run.stdout
    assert "no 'WINNER:' line" in run.stderr
    run_unknown, _ = _judged_again(harness, "WINNER: 7-other-model")
    assert "JUDGE: winner=none" in run_unknown.stdout
    assert "'7-other-model', which is not a candidate" in run_unknown.stderr


def _judged_again(harness: Any, reply: str) -> tuple[Any, list[Any]]:
    """A second race in the same repository (the first one's worktrees are replaced)."""
    turns = candidate(BROKEN, "Implemented add.") + candidate(FIXED_LONG, "Implemented add.")
    turns.append({"match": JUDGE_MATCH, "content": reply})
    server = harness.server(turns)
    run = swarm(harness, server, "--attempts", "2", "--judge", MODEL)
    return run, list(server.requests())


def test_both_judges_the_chat_judge_chooses_among_the_green(harness: Any) -> None:
    # Both pass; the tests alone would take the smaller patch (0); the chat judge picks 1.
    run, requests = _judged(harness, "WINNER: 1-fake-model", "tests", MODEL, first=FIXED)
    assert run.returncode == 0, run.stderr
    assert "JUDGE: winner=1-fake-model" in run.stdout
    shown = requests[0]["messages"][-1]["content"]
    assert "Tests (" in shown and "pass 2/2" in shown


def test_both_judges_the_tests_pick_stands_when_the_chat_judge_fails(harness: Any) -> None:
    run, _ = _judged(harness, "no verdict here", "tests", MODEL, first=FIXED)
    assert run.returncode == 0, run.stderr
    assert "JUDGE: winner=0-fake-model" in run.stdout  # the smaller of two green patches
    assert "the tests' pick stands" in run.stderr


def test_a_candidate_cannot_write_outside_its_worktree(harness: Any) -> None:
    project = harness.project
    make_repo(project)
    escape = [
        {"name": "write", "arguments": {"path": "../../../calc.py", "content": "pwned\n"}},
        {"name": "write", "arguments": {"path": str(project / "new.py"), "content": "x\n"}},
    ]
    server = harness.server([{"tool_calls": escape}, {"content": "done"}])
    run = swarm(harness, server, "--judge", "none")
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("✗ write") == 2
    assert run.stderr.count("was refused") == 2
    assert run.stderr.count("is outside the project") == 2
    assert "NotImplementedError" in (project / "calc.py").read_text()
    assert not (project / "new.py").exists()
    assert "JUDGE: winner=none" in run.stdout


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_mid_race_leaves_no_worktree_process_or_lock(
    harness: Any, marker: Any, signum: int
) -> None:
    project = harness.project
    make_repo(project)
    sleeper = {"name": "bash", "arguments": {"command": marker.command(), "timeout_secs": 600}}
    server = harness.server([{"tool_calls": [sleeper]}, {"content": "never"}])
    args = ["swarm", "task", "--host", server.url, "-m", MODEL, "--attempts", "2", "--no-tui"]
    proc = subprocess.Popen(
        [*rift_command(), *args],
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    try:
        assert marker.wait_alive(30), "the candidate's command never started"
        assert len(worktree_paths(project)) == 3
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "swarm cancelled" in err
    assert marker.wait_gone(5)
    assert worktree_paths(project) == [str(project)]
    assert not any((project / ".rift/worktrees").glob("*"))
    assert not (project / ".rift/swarm.lock").exists()
    assert git(project, "status", "--porcelain") == ""


def test_swarm_outside_a_repository_or_without_commits(harness: Any) -> None:
    server = harness.server([])
    run = swarm(harness, server)
    assert run.returncode == 2
    assert run.stderr.strip().startswith("rift: swarm mode needs a git repository")
    assert "Traceback" not in run.stderr
    git(harness.project, "init", "-q")
    run = swarm(harness, server)
    assert run.returncode == 2
    assert "repository has no commits yet" in run.stderr
    merged = harness.cli(["merge", "0-x"])
    assert merged.returncode == 2
    assert "no patch named '0-x'" in merged.stderr


def test_a_second_race_waits_for_the_lock_holder(harness: Any) -> None:
    project = harness.project
    make_repo(project)
    lock = project / ".rift/swarm.lock"
    lock.parent.mkdir()
    holder = subprocess.Popen(["sleep", "60"])
    try:
        lock.write_text(str(holder.pid))
        run = swarm(harness, harness.server([]), "--judge", "none")
        assert run.returncode == 2
        assert f"another swarm is running in this repository (pid {holder.pid})" in run.stderr
    finally:
        holder.kill()
        holder.wait()
    time.sleep(0.1)
    server = harness.server(candidate(FIXED, "ok"))
    run = swarm(harness, server, "--judge", "none")  # a dead holder's lock is taken over
    assert run.returncode == 0, run.stderr
    assert not lock.exists()


def test_candidates_overlap_only_when_parallel_is_asked(harness: Any) -> None:
    make_repo(harness.project)
    write = {"name": "write", "arguments": {"path": "calc.py", "content": FIXED}}
    slow = {"tool_calls": [write], "delay_first_byte": 1.0, "repeat": 2}
    done = {"match": "Wrote", "content": "done", "repeat": 2}

    def first_request_times(*extra: str) -> list[float]:
        """When each candidate's first request (system + task only) arrived."""
        server = harness.server([slow, done])
        run = swarm(harness, server, "--attempts", "2", "--judge", "none", *extra)
        assert run.returncode == 0, run.stderr
        return sorted(r["_t"] for r in server.requests() if len(r.get("messages") or ()) == 2)

    one, two = first_request_times()
    assert two - one >= 0.9  # one at a time: the second starts after the first answered
    one, two = first_request_times("--parallel", "2")
    assert two - one < 0.9  # both asked before either answer came


def test_parallel_candidates_pin_their_own_llama_cpp_slots(harness: Any) -> None:
    """Slot 0 stays with the conversation that raced; each running candidate names
    another (`id_slot`), so none evicts another's cached prompt."""
    make_repo(harness.project)
    write = {"name": "write", "arguments": {"path": "calc.py", "content": FIXED}}
    props = {"default_generation_settings": {"n_ctx": 32768}, "total_slots": 3}
    server = harness.server(
        [
            {"tool_calls": [write], "delay_first_byte": 0.5, "repeat": 2},
            {"content": "done", "repeat": 2},
        ],
        wire="openai",
        props=props,
    )
    run = swarm(harness, server, "--attempts", "2", "--parallel", "2", "--judge", "none")
    assert run.returncode == 0, run.stderr
    firsts = [r for r in server.chat_requests() if len(r.get("messages") or ()) == 2]
    assert sorted(r.get("id_slot") for r in firsts) == [1, 2]


def test_a_killed_race_is_cleaned_up_by_merge_cleanup(harness: Any, marker: Any) -> None:
    project = harness.project
    make_repo(project)
    sleeper = {"name": "bash", "arguments": {"command": marker.command(), "timeout_secs": 600}}
    server = harness.server([{"tool_calls": [sleeper]}, {"content": "never"}])
    args = ["swarm", "task", "--host", server.url, "-m", MODEL, "--no-tui"]
    proc = subprocess.Popen(
        [*rift_command(), *args],
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    try:
        assert marker.wait_alive(30), "the candidate's command never started"
    finally:
        proc.kill()  # SIGKILL: nothing of rift's own cleanup runs
        proc.wait()
    assert (project / ".rift/swarm.lock").exists()
    assert len(worktree_paths(project)) == 2
    cleaned = harness.cli(["merge", "--cleanup"])
    assert cleaned.returncode == 0, cleaned.stderr
    assert worktree_paths(project) == [str(project)]
    assert not (project / ".rift/swarm.lock").exists()


def test_serve_swarm_merge_undo_and_cancel(harness: Any, serve: Any, marker: Any) -> None:
    project = harness.project
    make_repo(project)
    sleeper = {"name": "bash", "arguments": {"command": marker.command(), "timeout_secs": 600}}
    write = {"name": "write", "arguments": {"path": "calc.py", "content": FIXED}}
    server = harness.server(
        [
            {"match": "real task", "tool_calls": [write]},
            {"match": "real task", "content": "Added add."},
            {"match": "sleepy task", "tool_calls": [sleeper]},
        ]
    )
    client = serve(server)
    client.send({"cmd": "swarm", "task": "real task", "judge": ["none"]})
    client.expect("subagent_started", tag="0-fake-model", model=MODEL)
    client.expect("subagent_finished", tag="0-fake-model")
    result = client.expect("swarm_result", winner="", judged_by="none")
    assert [c["name"] for c in result["candidates"]] == ["0-fake-model"]
    assert result["candidates"][0]["patch_bytes"] > 0
    assert "NotImplementedError" in (project / "calc.py").read_text()

    client.send({"cmd": "merge", "name": "0-fake-model"})
    client.expect("info", text="merged 0-fake-model: calc.py (staged; /undo takes it back)")
    assert (project / "calc.py").read_text() == FIXED
    client.send({"cmd": "undo"})
    client.expect("info")
    assert "NotImplementedError" in (project / "calc.py").read_text()

    client.send({"cmd": "swarm", "task": "sleepy task", "judge": "none"})
    assert marker.wait_alive(30), "the candidate's command never started"
    client.send({"cmd": "prompt", "text": "hello"})
    client.expect("warning", code="busy")
    client.send({"cmd": "cancel"})
    client.expect("warning", text="swarm cancelled: every candidate stopped, its worktree removed")
    assert marker.wait_gone(5)
    assert worktree_paths(project) == [str(project)]
    client.send({"cmd": "swarm", "task": "x", "attempts": 0})
    client.expect("warning", code="bad_command")
    client.close_stdin()
    assert client.proc.wait(timeout=20) == 0
    assert "Traceback" not in client.stderr()


def test_no_candidate_can_run_is_a_startup_failure(harness: Any) -> None:
    make_repo(harness.project)
    run = swarm(harness, harness.server([]), "--models", "missing-model", "--judge", "none")
    assert run.returncode == 2
    assert "rift: no candidate could run: model 'missing-model' not usable" in run.stderr
    assert len(worktree_paths(harness.project)) == 2  # left for `rift merge --cleanup`


def test_undo_of_a_merge_leaves_the_tree_and_the_index_as_before(harness: Any, serve: Any) -> None:
    # `git apply --3way` stages what it applies; an undo must unstage it again, and leave
    # alone what the person had staged or changed elsewhere before the merge.
    project = harness.project
    make_repo(project)
    (project / "notes.txt").write_text("mine, staged\n")
    git(project, "add", "notes.txt")
    (project / "test_calc.py").write_text(TESTS + "# my own edit, unstaged\n")
    before = git(project, "status", "--porcelain")
    write = {"name": "write", "arguments": {"path": "calc.py", "content": FIXED}}
    new = {"name": "write", "arguments": {"path": "extra.py", "content": "X = 1\n"}}
    server = harness.server([{"tool_calls": [write, new]}, {"content": "Added add."}])
    client = serve(server)
    client.send({"cmd": "swarm", "task": "real task", "judge": "none"})
    client.expect("swarm_started", task="real task", candidates=["0-fake-model"])
    client.expect("swarm_result", winner="", judged_by="none")
    client.send({"cmd": "worktrees"})
    listed = client.expect("info")
    assert "0-fake-model  " in listed["text"] and "patches (merge one" in listed["text"]
    client.send({"cmd": "merge", "name": "0-fake-model"})
    merged = "merged 0-fake-model: calc.py, extra.py (staged; /undo takes it back)"
    client.expect("info", text=merged)
    staged = git(project, "status", "--porcelain")
    assert "M  calc.py" in staged and "A  extra.py" in staged
    client.send({"cmd": "undo"})
    client.expect("info")
    assert "NotImplementedError" in (project / "calc.py").read_text()
    assert not (project / "extra.py").exists()
    assert git(project, "status", "--porcelain") == before
    assert git(project, "diff", "--cached", "--name-only") == "notes.txt\n"
    client.close_stdin()
    assert client.proc.wait(timeout=20) == 0


def test_a_bare_interpreter_test_command_is_refused(harness: Any) -> None:
    """Issue 44: `--test-cmd python3` would run an interpreter on an empty stdin: exit 0."""
    make_repo(harness.project)
    run = swarm(harness, harness.server([]), "--judge", "tests", "--test-cmd", "python3")
    assert run.returncode == 2
    [line] = run.stderr.strip().splitlines()
    assert "bare interpreter" in line and "Traceback" not in run.stderr
    assert worktree_paths(harness.project) == [str(harness.project)]

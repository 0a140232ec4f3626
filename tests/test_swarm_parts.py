"""The swarm's parts on their own: candidate planning, the WINNER parser, test-count
reading, test-command detection, ranking, patch capture and merge (real git in temp
repositories), and the undo journal a merge records into."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from rift.config.load import Config
from rift.fs.checkpoints import UndoJournal
from rift.swarm import merge as merging
from rift.swarm import worktrees
from rift.swarm.candidates import CandidateResult, CandidateSpec, max_parallel, plan
from rift.swarm.gitrepo import SwarmError, exclude_race_files
from rift.swarm.judge import diff_budget, parse_winner
from rift.swarm.testjudge import SuiteRun, best_by_tests, count_tests, detect_command, rank

NAMES = ["0-qwen3-8b", "1-qwen3-8b", "2-gemma-12b"]


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.txt").write_text("one\ntwo\n")
    (root / "b.txt").write_text("keep\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "initial")
    return root


# ------------------------------------------------------------------ planning


def test_plan_names_attempts_and_explore() -> None:
    specs = plan(["qwen3:8b", "openai/gpt-4o"], attempts=2, explore=True)
    assert [s.name for s in specs] == [
        "0-qwen3-8b",
        "1-qwen3-8b",
        "2-openai-gpt-4o",
        "3-openai-gpt-4o",
        "4-qwen3-8b",
        "5-qwen3-8b",
        "6-openai-gpt-4o",
        "7-openai-gpt-4o",
    ]
    assert [s.temperature for s in specs[:4]] == [None, 0.8, None, 0.8]
    assert specs[2].model == "openai/gpt-4o"


def test_max_parallel_embedded_is_sequential_servers_take_the_cap() -> None:
    config = Config()
    assert asyncio.run(max_parallel(config, ["embedded", "qwen3:8b"], 4)) == 1
    assert asyncio.run(max_parallel(config, ["qwen3:8b"], 3)) == 3
    assert asyncio.run(max_parallel(config, ["qwen3:8b"], None)) == 1


# ------------------------------------------------------------------ chat judge


@pytest.mark.parametrize(
    ("answer", "winner"),
    [
        ("Both try.\nWINNER: 1-qwen3-8b", "1-qwen3-8b"),
        ("**WINNER:** `2-gemma-12b`.", "2-gemma-12b"),
        ("winner = 0-QWEN3-8B", "0-qwen3-8b"),
        ("WINNER: 2", "2-gemma-12b"),
        ("WINNER: 0-qwen3-8b\nOn reflection:\nWINNER: 1-qwen3-8b", "1-qwen3-8b"),
        ("<think>WINNER: 0-qwen3-8b</think>\nWINNER: 2-gemma-12b", "2-gemma-12b"),
    ],
)
def test_parse_winner_picks(answer: str, winner: str) -> None:
    verdict = parse_winner(answer, NAMES)
    assert (verdict.winner, verdict.problem) == (winner, "")


@pytest.mark.parametrize("answer", ["WINNER: none", "WINNER: None of them.", "WINNER: nobody"])
def test_parse_winner_none_is_a_verdict(answer: str) -> None:
    assert parse_winner(answer, NAMES) == parse_winner(answer, NAMES)
    verdict = parse_winner(answer, NAMES)
    assert verdict.winner is None and verdict.problem == ""


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("The second one is better.", "no 'WINNER:' line"),
        ("", "no 'WINNER:' line"),
        ("<think>WINNER: 1-qwen3-8b</think> hmm", "no 'WINNER:' line"),
        ("WINNER: 9-other", "'9-other', which is not a candidate"),
        ("WINNER:", "'(nothing)', which is not a candidate"),
    ],
)
def test_parse_winner_malformed(answer: str, problem: str) -> None:
    verdict = parse_winner(answer, NAMES)
    assert verdict.winner is None
    assert problem in verdict.problem


def test_diff_budget_shares_the_window() -> None:
    assert diff_budget(32768, 2) == 12_000
    assert diff_budget(8192, 6) < diff_budget(8192, 2) <= 12_000
    assert diff_budget(2048, 10) == 1000


# ------------------------------------------------------------------ tests judge


@pytest.mark.parametrize(
    ("output", "counts"),
    [
        ("....F\n1 failed, 4 passed in 0.12s", (4, 1)),
        ("3 passed, 1 error in 1.0s", (3, 1)),
        ("test result: ok. 3 passed; 0 failed; 0 ignored\ntest result: ok. 2 passed;", (5, 0)),
        ("ok  \texample.com/a\t0.01s\nFAIL\texample.com/b\t0.02s\n", (1, 1)),
        ("Test Suites: 1 failed, 1 total\nTests:       1 failed, 3 passed, 4 total", (3, 1)),
        ("  5 passing (20ms)\n  2 failing", (5, 2)),
        ("all good", (0, 0)),
    ],
)
def test_count_tests(output: str, counts: tuple[int, int]) -> None:
    assert count_tests(output) == counts


def test_detect_command(tmp_path: Path) -> None:
    root = tmp_path
    assert detect_command(root, root) is None
    (root / "package.json").write_text(
        '{"scripts": {"test": "echo \\"Error: no test specified\\""}}'
    )
    assert detect_command(root, root) is None
    (root / "package.json").write_text('{"scripts": {"test": "jest"}}')
    assert detect_command(root, root) == "npm test"
    (root / "go.mod").write_text("module x\n")
    assert detect_command(root, root) == "go test ./..."
    (root / "Cargo.toml").write_text("[package]\n")
    assert detect_command(root, root) == "cargo test"
    (root / "tests").mkdir()
    (root / "tests" / "test_x.py").write_text("")
    assert detect_command(root, root) == "cargo test"  # a configured project comes first
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    python = root / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")
    assert detect_command(root, root) == f"{python} -m pytest -q -p no:cacheprovider"


def _result(name: str, patch: int, code: int | None, passed: int) -> CandidateResult:
    result = CandidateResult(CandidateSpec(name, "m"), outcome="answered", patch_bytes=patch)
    result.tests = SuiteRun("t", code, passed, 0, 0.1, "")
    return result


def test_rank_green_then_passed_then_smaller_patch() -> None:
    red = _result("0-m", 10, 1, 9)
    big = _result("1-m", 500, 0, 3)
    small = _result("2-m", 100, 0, 3)
    more = _result("3-m", 900, 0, 4)
    empty = _result("4-m", 0, 0, 5)
    assert [r.name for r in rank([red, big, small, more, empty])] == [
        "3-m",
        "2-m",
        "1-m",
        "0-m",
        "4-m",
    ]
    winner = best_by_tests([red, big, small, more, empty])
    assert winner is not None and winner.name == "3-m"
    assert best_by_tests([red, empty]) is None


# ------------------------------------------------------------------ git side


def test_exclude_is_added_once(repo: Path) -> None:
    exclude_race_files(repo)
    exclude_race_files(repo)
    lines = (repo / ".git/info/exclude").read_text().splitlines()
    assert lines.count(".rift/worktrees/") == 1 and lines.count(".rift/patches/") == 1


def test_capture_patch_keeps_what_a_candidate_committed(repo: Path) -> None:
    commit = git(repo, "rev-parse", "HEAD").strip()
    place = worktrees.create(repo, "0-m", commit)
    (place / "a.txt").write_text("one\nTWO\n")
    git(place, "commit", "-qam", "the candidate commits")
    (place / "c.txt").write_text("new\n")
    (place / "__pycache__").mkdir()
    (place / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0\1")
    dest = worktrees.patch_path(repo, "0-m")
    size = worktrees.capture_patch(repo, place, commit, dest)
    text = dest.read_text()
    assert size == len(dest.read_bytes()) > 0
    assert "+TWO" in text and "+new" in text and "pyc" not in text
    assert worktrees.remove_all(repo) == ["0-m"]
    assert git(repo, "worktree", "list").count("\n") == 1


def test_a_stale_worktree_is_replaced(repo: Path) -> None:
    commit = git(repo, "rev-parse", "HEAD").strip()
    first = worktrees.create(repo, "0-m", commit)
    (first / "junk.txt").write_text("left by a killed race")
    again = worktrees.create(repo, "0-m", commit)
    assert again == first and not (again / "junk.txt").exists()


def _patch(repo: Path, name: str, edit: dict[str, str | None]) -> Path:
    """A candidate patch made the way a race makes one, for files changed as `edit` says."""
    commit = git(repo, "rev-parse", "HEAD").strip()
    place = worktrees.create(repo, name, commit)
    for rel, content in edit.items():
        if content is None:
            (place / rel).unlink()
        else:
            (place / rel).write_text(content)
    dest = worktrees.patch_path(repo, name)
    worktrees.capture_patch(repo, place, commit, dest)
    return dest


def test_merge_is_journaled_and_undoable(repo: Path) -> None:
    _patch(repo, "0-m", {"a.txt": "one\n2\n", "new.txt": "hi\n", "b.txt": None})
    journal = UndoJournal()
    merged = merging.merge(repo, "0-m", journal)
    assert set(merged.files) == {"a.txt", "new.txt", "b.txt"}
    assert merged.conflicts == ()
    assert (repo / "a.txt").read_text() == "one\n2\n"
    assert (repo / "new.txt").read_text() == "hi\n"
    assert not (repo / "b.txt").exists()
    restored = journal.undo_last_turn()
    assert {p.name for p in restored} == {"a.txt", "new.txt", "b.txt"}
    assert (repo / "a.txt").read_text() == "one\ntwo\n"
    assert (repo / "b.txt").read_text() == "keep\n"
    assert not (repo / "new.txt").exists()


def test_undo_of_a_conflicted_merge_puts_the_index_back(repo: Path) -> None:
    _patch(repo, "0-m", {"a.txt": "one\ncandidate\n", "new.txt": "hi\n"})
    (repo / "a.txt").write_text("one\nmine\n")
    git(repo, "add", "a.txt")  # staged by the person, so the patch meets a conflict
    (repo / "b.txt").write_text("keep, edited\n")
    before = git(repo, "status", "--porcelain")
    index = git(repo, "ls-files", "--stage")
    journal = UndoJournal()
    merged = merging.merge(repo, "0-m", journal)
    assert merged.conflicts == ("a.txt",)
    assert "UU a.txt" in git(repo, "status", "--porcelain")
    journal.undo_last_turn()
    assert git(repo, "status", "--porcelain") == before
    assert git(repo, "ls-files", "--stage") == index
    assert (repo / "a.txt").read_text() == "one\nmine\n"


def test_patch_view_gives_whole_texts_even_after_cleanup(repo: Path) -> None:
    from rift.swarm.patchview import FileChange, file_changes, patch_text

    _patch(repo, "0-m", {"a.txt": "one\n2\n", "new file.txt": "hi\n", "b.txt": None})
    worktrees.remove_all(repo)  # `merge --cleanup`: the blobs stay in the object store
    changes = sorted(file_changes(repo, "0-m"), key=lambda c: c.path)
    assert changes == [
        FileChange(repo / "a.txt", "one\ntwo\n", "one\n2\n"),
        FileChange(repo / "b.txt", "keep\n", None),
        FileChange(repo / "new file.txt", None, "hi\n"),
    ]
    assert "+one" not in patch_text(repo, "0-m") and "+2" in patch_text(repo, "0-m")
    assert file_changes(repo, "9-none") == [] and patch_text(repo, "9-none") == ""


def test_merge_refused_by_git_leaves_the_tree_as_it_was(repo: Path) -> None:
    _patch(repo, "0-m", {"a.txt": "one\nchanged\n"})
    (repo / "a.txt").write_text("mine, not committed\n")  # differs from the index
    journal = UndoJournal()
    journal.begin_turn()
    journal.record(repo / "b.txt", b"an earlier turn's snapshot")
    with pytest.raises(SwarmError, match="git apply refused 0-m's patch"):
        merging.merge(repo, "0-m", journal)
    assert (repo / "a.txt").read_text() == "mine, not committed\n"
    assert journal.journaled_turns() == [1]  # the earlier turn is still there


def test_merge_errors(repo: Path) -> None:
    with pytest.raises(SwarmError, match="no patch named '0-m'"):
        merging.merge(repo, "0-m", UndoJournal())
    worktrees.patches_dir(repo).mkdir(parents=True)
    worktrees.patch_path(repo, "1-m").write_text("")
    with pytest.raises(SwarmError, match="made no changes"):
        merging.merge(repo, "1-m", UndoJournal())
    with pytest.raises(SwarmError, match="candidates: 1-m"):
        merging.merge(repo, "../1-m", UndoJournal())


def test_touched_lists_both_ends_of_a_rename(repo: Path) -> None:
    commit = git(repo, "rev-parse", "HEAD").strip()
    place = worktrees.create(repo, "0-m", commit)
    git(place, "mv", "b.txt", "renamed.txt")
    dest = worktrees.patch_path(repo, "0-m")
    worktrees.capture_patch(repo, place, commit, dest)
    assert "rename from b.txt" in dest.read_text()
    assert merging.touched(repo, dest.read_bytes(), dest.name) == ["b.txt", "renamed.txt"]


def test_race_lock_refuses_a_live_holder_and_takes_a_dead_ones(repo: Path) -> None:
    lock = worktrees.RaceLock(repo)
    lock.acquire()
    with pytest.raises(SwarmError, match="another swarm is running"):
        worktrees.RaceLock(repo).acquire()
    lock.release()
    assert not lock.path.exists()
    lock.path.write_text("999999999")  # no such process
    with worktrees.RaceLock(repo).held():
        assert lock.path.read_text().strip().isdigit()
    assert not lock.path.exists()


def test_parse_swarm_line() -> None:
    from rift.swarm.work import parse_swarm

    options = parse_swarm('fix "the bug" --models a,b --attempts 2 --explore --judge tests', "m")
    assert options.task == "fix the bug"
    assert options.models == ("a", "b")
    assert (options.attempts, options.explore, options.judges) == (2, True, ("tests",))
    plain = parse_swarm("add a flag", "current")
    assert (plain.models, plain.judges) == (("current",), None)
    assert parse_swarm("x --judge none", "m").judges == ()
    for bad, problem in [
        ("--explore", "usage: /swarm"),
        ("x --attempts", "--attempts needs a value"),
        ("x --attempts 0", "1 or more"),
        ("x --fast", "unknown option --fast"),
        ('x "open', "No closing quotation"),
    ]:
        with pytest.raises(SwarmError, match=problem):
            parse_swarm(bad, "m")


@pytest.mark.parametrize(
    "command",
    [
        "python3",
        "python",
        "python3.12",
        "/usr/bin/python3",
        "node",
        "bash",
        "sh",
        "ruby",
        "python3 -u",
        "env python3",
        "FOO=1 node",
    ],
)
def test_a_bare_interpreter_is_no_test_command(command: str) -> None:
    """Issue 44: a bare interpreter reads an empty stdin and exits 0, a false green."""
    from rift.swarm.testjudge import bare_interpreter

    assert bare_interpreter(command)


@pytest.mark.parametrize(
    "command",
    [
        "python3 check_calc.py",
        "python -m pytest",
        "node test.js",
        "bash -c 'make test'",
        "pytest",
        "npm test",
        "go test ./...",
        "cargo test",
        "sh run_tests.sh",
    ],
)
def test_a_real_test_command_is_not_a_bare_interpreter(command: str) -> None:
    from rift.swarm.testjudge import bare_interpreter

    assert not bare_interpreter(command)


def test_parse_swarm_keeps_a_quoted_test_command_whole() -> None:
    from rift.swarm.work import parse_swarm

    options = parse_swarm("fix calc --test-cmd 'python3 check_calc.py'", "m")
    assert (options.task, options.test_cmd) == ("fix calc", "python3 check_calc.py")

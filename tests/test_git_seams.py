"""Git as a way out of rift: every attack here is staged for real (real git
repositories in temp folders, real `rift merge` processes) and must not reach
outside the project, run a repository's filter or driver, or hand git the API key.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rift.fs.gitcmd import GitRefused, run_git
from rift.swarm import worktrees
from rift.swarm.gitrepo import SwarmError

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="needs git",
)


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
    (root / "a.txt").write_text("one\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "initial")
    return root


def rift(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rift", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


def test_merge_cleanup_through_a_symlinked_rift_worktrees_deletes_nothing_outside(
    repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    for name in ("precious", "photos"):
        (outside / name).mkdir(parents=True)
        (outside / name / "keep.txt").write_text("mine\n")
    (repo / ".rift").mkdir()
    (repo / ".rift" / "worktrees").symlink_to(outside)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a committed .rift/worktrees link")
    done = rift(repo, "merge", "--cleanup")
    assert (outside / "precious" / "keep.txt").read_text() == "mine\n"
    assert (outside / "photos" / "keep.txt").exists()
    assert "symlink" in done.stderr and "Traceback" not in done.stderr


def test_swarm_worktree_is_not_created_through_a_symlinked_rift_worktrees(
    repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / ".rift").mkdir()
    (repo / ".rift" / "worktrees").symlink_to(outside)
    commit = git(repo, "rev-parse", "HEAD").strip()
    with pytest.raises(SwarmError, match="symlink"):
        worktrees.create(repo, "0-m", commit)
    assert list(outside.iterdir()) == []


def test_a_symlinked_rift_patches_neither_writes_nor_deletes_patches_outside(
    repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "theirs.patch").write_text("not rift's\n")
    commit = git(repo, "rev-parse", "HEAD").strip()
    place = worktrees.create(repo, "0-m", commit)
    (place / "a.txt").write_text("two\n")
    (repo / ".rift" / "patches").symlink_to(outside)  # swapped in while the race runs
    with pytest.raises(SwarmError, match="symlink"):
        worktrees.clear_patches(repo)
    with pytest.raises(SwarmError, match="symlink"):
        worktrees.capture_patch(repo, place, commit, worktrees.patch_path(repo, "0-m"))
    assert sorted(p.name for p in outside.iterdir()) == ["theirs.patch"]
    assert (outside / "theirs.patch").read_text() == "not rift's\n"


def _plant_filter(git_dir_config: Path, marker: Path) -> None:
    with git_dir_config.open("a") as handle:
        handle.write(f'[filter "x"]\n\tclean = "touch {marker}; cat"\n')
        handle.write(f'\tsmudge = "touch {marker}; cat"\n')


def test_capture_does_not_run_a_filter_a_candidate_planted_with_git_init(
    repo: Path, tmp_path: Path
) -> None:
    """The bwrap escape: the candidate's bash replaces `.git` with `git init`, defines
    filter.x.clean and writes `* filter=x`; rift's unsandboxed `git add -A` ran it."""
    marker = tmp_path / "filter-ran"
    commit = git(repo, "rev-parse", "HEAD").strip()
    place = worktrees.create(repo, "0-m", commit)
    (place / ".git").unlink()
    git(place, "init", "-q")
    _plant_filter(place / ".git" / "config", marker)
    (place / ".gitattributes").write_text("* filter=x\n")
    (place / "a.txt").write_text("changed\n")
    dest = worktrees.patch_path(repo, "0-m")
    worktrees.capture_patch(repo, place, commit, dest)
    assert not marker.exists()
    assert "+changed" in dest.read_text()


def test_capture_ignores_a_git_file_written_by_the_write_tool(repo: Path, tmp_path: Path) -> None:
    """Bash denied: `write` alone creates evilgit/{HEAD,config}, `.gitattributes` and a
    `.git` FILE holding `gitdir: evilgit`."""
    marker = tmp_path / "filter-ran"
    commit = git(repo, "rev-parse", "HEAD").strip()
    place = worktrees.create(repo, "0-m", commit)
    (place / "evilgit").mkdir()
    (place / "evilgit" / "HEAD").write_text("ref: refs/heads/main\n")
    (place / "evilgit" / "config").write_text("[core]\n\trepositoryformatversion = 0\n")
    _plant_filter(place / "evilgit" / "config", marker)
    (place / ".gitattributes").write_text("* filter=x\n")
    (place / ".git").write_text("gitdir: evilgit\n")
    (place / "a.txt").write_text("changed\n")
    dest = worktrees.patch_path(repo, "0-m")
    worktrees.capture_patch(repo, place, commit, dest)
    assert not marker.exists()
    assert "+changed" in dest.read_text()
    with pytest.raises(GitRefused):
        run_git(place, "status")


def test_a_repository_filter_and_merge_driver_do_not_run_during_rift_merge(
    repo: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "driver-ran"
    commit = git(repo, "rev-parse", "HEAD").strip()
    place = worktrees.create(repo, "0-m", commit)
    (place / "a.txt").write_text("theirs\n")
    worktrees.capture_patch(repo, place, commit, worktrees.patch_path(repo, "0-m"))
    (repo / ".gitattributes").write_text("* filter=x merge=evil\n")
    (repo / "a.txt").write_text("ours\n")  # a conflict: --3way falls back to a merge
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "ours")
    _plant_filter(repo / ".git" / "config", marker)
    with (repo / ".git" / "config").open("a") as handle:
        handle.write(f'[merge "evil"]\n\tdriver = "touch {marker}; false"\n')
    done = rift(repo, "merge", "0-m")
    assert not marker.exists(), done.stderr
    assert "Traceback" not in done.stderr and "conflict" in done.stderr.lower()
    assert "<<<<<<<" in (repo / "a.txt").read_text()


def test_git_processes_rift_starts_do_not_get_the_api_key(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a repository's filter or driver would see: a git alias prints git's env."""
    git(repo, "config", "alias.showenv", "!env")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-for-git-test")
    monkeypatch.setenv("GIT_DIR", "/nowhere")
    done = run_git(repo, "showenv")
    out = done.stdout.decode()
    assert done.returncode == 0 and "PATH=" in out
    assert "sk-secret-for-git-test" not in out and "/nowhere" not in out


def test_a_git_link_pointing_outside_is_refused(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / ".git").symlink_to(other / ".git")
    with pytest.raises(GitRefused):
        run_git(planted, "status")
    assert run_git(repo, "status").returncode == 0


def test_a_long_running_filter_process_with_required_set_does_not_run(
    repo: Path, tmp_path: Path
) -> None:
    """`filter.<x>.process` (the Git LFS style) with `required`: overridden, never started."""
    marker = tmp_path / "process-ran"
    with (repo / ".git" / "config").open("a") as handle:
        handle.write(f'[filter "x"]\n\tprocess = "touch {marker}"\n\trequired = true\n')
    (repo / ".gitattributes").write_text("* filter=x\n")
    (repo / "a.txt").write_text("two\n")
    assert run_git(repo, "add", "-A").returncode == 0
    assert run_git(repo, "status", "--porcelain").returncode == 0
    assert not marker.exists()


def test_a_patches_folder_swapped_for_a_link_feeds_no_outside_patch_to_a_face_or_merge(
    repo: Path, tmp_path: Path
) -> None:
    from rift.swarm.patchview import patch_text

    commit = git(repo, "rev-parse", "HEAD").strip()
    place = worktrees.create(repo, "0-m", commit)
    (place / "a.txt").write_text("two\n")
    worktrees.capture_patch(repo, place, commit, worktrees.patch_path(repo, "0-m"))
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+SECRET FROM OUTSIDE\n"
    (outside / "0-m.patch").write_text(secret)
    patches = repo / ".rift" / "patches"
    for old in patches.iterdir():
        old.unlink()
    patches.rmdir()
    patches.symlink_to(outside)
    assert "SECRET" not in patch_text(repo, "0-m")
    done = rift(repo, "merge", "0-m")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert (repo / "a.txt").read_text() == "one\n"


def test_a_persons_own_linked_worktree_still_works(repo: Path, tmp_path: Path) -> None:
    """Refusing planted `.git` files must not refuse git's own: a linked worktree's
    `.git` file points outside its tree, at the main repository's records."""
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked))
    done = run_git(linked, "status", "--porcelain", "-b")
    assert done.returncode == 0 and b"## linked" in done.stdout

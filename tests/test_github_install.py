"""`rift github install` writes a workflow that is safe to run on public comments (issue 32)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.rift_bin import run_rift


def _git_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def _load(project: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((project / ".github/workflows/rift.yml").read_text())
    return data


def test_install_writes_a_workflow_run_on_trusted_comments(tmp_path: Path) -> None:
    _git_repo(tmp_path)
    done = run_rift(["github", "install"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "wrote .github/workflows/rift.yml" in done.stdout
    flow = _load(tmp_path)
    assert list(flow[True]) == ["issue_comment"]  # YAML 1.1 reads the key `on` as True
    job = flow["jobs"]["rift"]
    assert "OWNER" in job["if"] and "author_association" in job["if"]
    run_step = next(s for s in job["steps"] if s.get("id") == "rift")
    # The comment reaches the shell through the environment, never spliced into the script.
    assert "github.event.comment.body" in run_step["env"]["COMMENT"]
    assert "${{" not in run_step["run"]
    assert "rift -p" in run_step["run"]
    assert run_step["env"]["RIFT_HOST"] == "${{ secrets.RIFT_HOST }}"
    assert (tmp_path / ".github/workflows/rift.yml").stat().st_mode & 0o777 == 0o644


def test_install_keeps_an_existing_workflow_unless_forced(tmp_path: Path) -> None:
    _git_repo(tmp_path)
    target = tmp_path / ".github/workflows/rift.yml"
    target.parent.mkdir(parents=True)
    target.write_text("# mine\n")
    kept = run_rift(["github", "install"], tmp_path)
    assert kept.returncode == 1
    assert (
        kept.stderr.strip() == "rift: .github/workflows/rift.yml exists; pass --force to replace it"
    )
    assert target.read_text() == "# mine\n"
    forced = run_rift(["github", "install", "--force"], tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert "rift -p" in target.read_text()


def test_install_never_writes_through_a_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "outside.yml"
    project = _git_repo(tmp_path / "p")
    (project / ".github/workflows").mkdir(parents=True)
    (project / ".github/workflows/rift.yml").symlink_to(outside)
    done = run_rift(["github", "install", "--force"], project)
    assert done.returncode == 1
    assert "symlink" in done.stderr
    assert not outside.exists()


def test_a_wrong_subcommand_is_one_line_of_usage(tmp_path: Path) -> None:
    done = run_rift(["github", "uninstall"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == "usage: rift github install [--force]"


def test_install_refuses_outside_a_git_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))  # /tmp may be a repo
    done = run_rift(["github", "install"], tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().startswith("rift: not a git repository")
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / ".github").exists()


def test_install_refuses_a_symlinked_github_folder_leading_out_of_the_project(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    project = _git_repo(tmp_path / "p")
    (project / ".github").symlink_to(outside)
    done = run_rift(["github", "install"], project)
    assert done.returncode == 1
    assert "outside the project" in done.stderr
    assert list(outside.iterdir()) == []


def test_install_refuses_a_symlinked_workflows_folder_leading_out_of_the_project(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    project = _git_repo(tmp_path / "p")
    (project / ".github").mkdir()
    (project / ".github/workflows").symlink_to(outside)
    done = run_rift(["github", "install"], project)
    assert done.returncode == 1
    assert "outside the project" in done.stderr
    assert list(outside.iterdir()) == []


def test_ci_comment_from_a_fork_never_runs_with_a_write_token_in_git_config(
    tmp_path: Path,
) -> None:
    """A pull request from a fork is someone else's code: the job refuses it, and no
    step leaves the job's token where the checked-out code (or rift's tools) can read it."""
    _git_repo(tmp_path)
    assert run_rift(["github", "install"], tmp_path).returncode == 0
    job = _load(tmp_path)["jobs"]["rift"]
    checkouts = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout")]
    assert checkouts and all(s["with"]["persist-credentials"] is False for s in checkouts)
    pr_step = next(s for s in job["steps"] if "gh pr checkout" in s.get("run", ""))
    assert "isCrossRepository" in pr_step["run"]
    refuse, checkout = pr_step["run"].index("exit 1"), pr_step["run"].index("gh pr checkout")
    assert refuse < checkout
    run_step = next(s for s in job["steps"] if s.get("id") == "rift")
    assert "GH_TOKEN" not in run_step["env"] and "GITHUB_TOKEN" not in run_step["env"]
    assert "comment.author_association" in job["if"]


def test_ci_workflow_never_installs_the_unrelated_pypi_rift(tmp_path: Path) -> None:
    _git_repo(tmp_path)
    done = run_rift(["github", "install"], tmp_path)
    assert done.returncode == 0, done.stderr
    job = _load(tmp_path)["jobs"]["rift"]
    step = next(s for s in job["steps"] if s.get("name") == "Install rift")
    spec = step["env"]["RIFT_PIP_SPEC"]
    assert "'rift'" not in spec
    assert "'rift-agent'" in spec or "git+https://" in spec
    assert "RIFT_PIP_SPEC" in done.stdout  # the next steps say how to change it


def _installed_from_clone(tmp_path: Path) -> tuple[Path, str]:
    """A site folder whose `rift-agent` metadata says it was installed (editable) from a
    clone of github.com/acme/rift; the clone's HEAD is on its remote. (site, commit)"""
    upstream = _git_repo(tmp_path / "upstream")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(
        [*git, "-C", str(upstream), "commit", "-q", "--allow-empty", "-m", "x"], check=True
    )
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(upstream), str(clone)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(clone),
            "remote",
            "set-url",
            "origin",
            "https://github.com/acme/rift.git",
        ],
        check=True,
    )
    commit = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    info = tmp_path / "site" / "rift_agent-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rift-agent\nVersion: 0.1.0\n")
    direct = {"url": clone.as_uri(), "dir_info": {"editable": True}}
    (info / "direct_url.json").write_text(json.dumps(direct))
    return tmp_path / "site", commit


def test_ci_workflow_installs_rift_from_its_pushed_source_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site, commit = _installed_from_clone(tmp_path)
    monkeypatch.setenv("PYTHONPATH", f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    project = _git_repo(tmp_path / "p")
    done = run_rift(["github", "install"], project)
    assert done.returncode == 0, done.stderr
    step = next(
        s for s in _load(project)["jobs"]["rift"]["steps"] if s.get("name") == "Install rift"
    )
    want = f"git+https://github.com/acme/rift.git@{commit}"
    assert step["env"]["RIFT_PIP_SPEC"] == f"${{{{ vars.RIFT_PIP_SPEC || '{want}' }}}}"
    assert want in done.stdout

"""`rift github install` writes a workflow that is safe to run on public comments (issue 32)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.rift_bin import run_rift


def _load(project: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((project / ".github/workflows/rift.yml").read_text())
    return data


def test_install_writes_a_workflow_run_on_trusted_comments(tmp_path: Path) -> None:
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
    project = tmp_path / "p"
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

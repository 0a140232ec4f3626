"""core/loop/preread.py: which files a small model's task names."""

from __future__ import annotations

from pathlib import Path

from rift.core.loop.preread import MAX_BYTES, named_files


def allow(_: Path) -> str | None:
    return None


def test_names_of_existing_project_files(tmp_path: Path) -> None:
    (tmp_path / "stats.py").write_text("x = 1\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("y = 2\n")
    (tmp_path / "settings.json").write_text("{}")
    task = "max_of in stats.py is wrong. Also see `pkg/mod.py`, settings.json, and nope.py."
    assert named_files(task, tmp_path, allow) == ["stats.py", "pkg/mod.py"]  # two at most


def test_not_outside_the_project_nor_denied_nor_big_nor_mentioned(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (tmp_path / "secret.txt").write_text("key")
    (project / "link.txt").symlink_to(tmp_path / "secret.txt")
    (project / "big.py").write_text("#" * (MAX_BYTES + 1))
    (project / ".env").write_text("TOKEN=1")
    (project / "calc.py").write_text("x = 1\n")
    (project / "ok.py").write_text("y = 1\n")

    def deny_env(path: Path) -> str | None:
        return "denied" if path.name == ".env" else None

    task = "read ../secret.txt link.txt big.py .env @calc.py /etc/passwd and ok.py"
    assert named_files(task, project, deny_env) == ["ok.py"]


def test_prose_and_folders_are_not_files(tmp_path: Path) -> None:
    (tmp_path / "src.d").mkdir()
    task = "Fix it, e.g. by returning 0.0 in src.d or v1.2. Thanks."
    assert named_files(task, tmp_path, allow) == []

"""`atomic_write` on real files: whole content, permission bits, nothing left behind."""

from __future__ import annotations

from pathlib import Path

from rift.fs.paths import atomic_write


def test_a_new_file_is_private_and_whole(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "session.json"
    atomic_write(target, "{}\n")
    assert target.read_text(encoding="utf-8") == "{}\n"
    assert target.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in target.parent.iterdir()] == ["session.json"]  # no temp file left


def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "project" / "notes.md"
    target.parent.mkdir()
    target.write_text("old", encoding="utf-8")
    target.chmod(0o644)
    atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["notes.md"]

"""rift/fs/safe_fs.py against real files: what was checked is what is opened."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rift.fs import safe_fs
from rift.fs.checkpoints import UndoFailed, UndoJournal


def test_a_directory_swapped_for_a_symlink_after_the_check_is_refused(tmp_path: Path) -> None:
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    real = safe_fs.resolve(inside / "pwn.txt")  # checked while `inside` is a directory
    inside.rename(tmp_path / "parked")
    inside.symlink_to(outside)
    with pytest.raises(safe_fs.PathChanged):
        safe_fs.write_atomic(real, b"x")
    with pytest.raises(safe_fs.PathChanged):
        safe_fs.read_regular(real)
    assert not list(outside.iterdir())


def test_a_file_swapped_for_a_symlink_is_replaced_not_followed(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_bytes(b"keep")
    name = tmp_path / "f.txt"
    name.symlink_to(secret)
    with pytest.raises(safe_fs.PathChanged):
        safe_fs.read_regular(name)
    with pytest.raises(safe_fs.NotRegular):
        safe_fs.write_atomic(name, b"x")
    assert secret.read_bytes() == b"keep"


def test_only_regular_files_are_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(safe_fs.NotRegular):
        safe_fs.read_regular(fifo)  # returns at once: opened non-blocking, then fstat
    with pytest.raises(safe_fs.NotRegular):
        safe_fs.read_regular(Path("/dev/zero"))
    with pytest.raises(IsADirectoryError):
        safe_fs.read_regular(tmp_path)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 11)
    with pytest.raises(safe_fs.TooLarge):
        safe_fs.read_regular(big, cap=10)


def test_write_keeps_the_mode_and_creates_directories(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_bytes(b"#!/bin/sh\n")
    script.chmod(0o755)
    safe_fs.write_atomic(script, b"#!/bin/sh\necho\n")
    assert script.stat().st_mode & 0o777 == 0o755
    made = safe_fs.write_atomic(tmp_path / "a" / "b" / "c.txt", b"c")
    assert (tmp_path / "a" / "b" / "c.txt").read_bytes() == b"c"
    assert made == safe_fs.current_id(tmp_path / "a" / "b" / "c.txt")


def test_undo_refuses_a_symlink_planted_where_the_file_was(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"user data")
    made = tmp_path / "made.txt"
    journal = UndoJournal()
    journal.begin_turn()
    journal.record(made, None)
    journal.wrote(made, safe_fs.write_atomic(made, b"rift"))
    made.unlink()
    made.symlink_to(victim)
    with pytest.raises(UndoFailed):
        journal.undo_last_turn()
    assert victim.read_bytes() == b"user data" and made.is_symlink()


def test_undo_meets_the_write_limits(tmp_path: Path) -> None:
    made = tmp_path / "made.txt"
    journal = UndoJournal()
    journal.guard = lambda path: "rift's own directory" if path == made else None
    journal.begin_turn()
    journal.record(made, None)
    journal.wrote(made, safe_fs.write_atomic(made, b"rift"))
    with pytest.raises(UndoFailed, match="rift's own directory"):
        journal.undo_last_turn()
    assert made.read_bytes() == b"rift"


def test_a_file_in_the_middle_of_a_path_is_not_a_directory(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_bytes(b"")
    with pytest.raises(NotADirectoryError):
        safe_fs.write_atomic(tmp_path / "main.py" / "x.py", b"x")


def test_a_254_byte_utf8_name_can_be_written(tmp_path: Path) -> None:
    """127 × 'é' is 254 bytes, under NAME_MAX (255); the temp name must fit in bytes too."""
    name = "é" * 127
    assert len(name.encode()) == 254
    folder = tmp_path / "names"
    real = safe_fs.resolve(folder / name)
    safe_fs.write_atomic(real, b"hello")
    assert (folder / name).read_bytes() == b"hello"
    safe_fs.write_atomic(real, b"again")
    assert [p.name for p in folder.iterdir()] == [name]  # no temp file left behind
    assert (folder / name).read_bytes() == b"again"

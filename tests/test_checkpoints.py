"""The undo journal against real files: exact bytes back, created files gone."""

from __future__ import annotations

from pathlib import Path

import pytest

from rift.errors import RiftError
from rift.fs.checkpoints import (
    NothingToUndo,
    UndoFailed,
    UndoJournal,
    format_undo_message,
    read_prior,
)


def _write(journal: UndoJournal, path: Path, data: bytes) -> None:
    """What the write tool does: snapshot first, then write."""
    journal.record(path, read_prior(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_undo_restores_exact_bytes_including_non_utf8(tmp_path: Path) -> None:
    path = tmp_path / "blob.bin"
    original = b"\xff\xfe\x00latin-1 \xe9\r\n no trailing newline"
    path.write_bytes(original)
    journal = UndoJournal()
    journal.begin_turn()
    _write(journal, path, b"new")
    assert journal.undo_last_turn() == [path]
    assert path.read_bytes() == original


def test_undo_deletes_files_the_turn_created_and_recreates_dirs(tmp_path: Path) -> None:
    created = tmp_path / "new" / "file.py"
    existing = tmp_path / "gone" / "deep" / "keep.txt"
    existing.parent.mkdir(parents=True)
    existing.write_bytes(b"keep me")
    journal = UndoJournal()
    journal.begin_turn()
    _write(journal, created, b"print(1)")
    _write(journal, existing, b"changed")
    # Something (say bash) removed the whole directory afterwards.
    existing.unlink()
    existing.parent.rmdir()
    assert journal.undo_last_turn() == [created, existing]
    assert not created.exists()
    assert existing.read_bytes() == b"keep me"


def test_undo_keeps_the_files_permission_bits(tmp_path: Path) -> None:
    """A restored file keeps its mode: an executable script stays executable, a shared
    file stays readable (the temp file behind the atomic rename starts as 0600)."""
    script = tmp_path / "run.sh"
    script.write_bytes(b"#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    journal = UndoJournal()
    journal.begin_turn()
    _write(journal, script, b"#!/bin/sh\nrm -rf build\n")
    assert journal.undo_last_turn() == [script]
    assert script.read_bytes() == b"#!/bin/sh\necho hi\n"
    assert script.stat().st_mode & 0o7777 == 0o755


def test_only_first_prior_per_turn_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"v0")
    journal = UndoJournal()
    journal.begin_turn()
    _write(journal, path, b"v1")
    _write(journal, path, b"v2")
    journal.record(tmp_path / "." / "a.txt", b"other spelling")  # same file
    journal.undo_last_turn()
    assert path.read_bytes() == b"v0"


def test_undo_goes_back_one_turn_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"v0")
    journal = UndoJournal()
    for n in (1, 2, 3):
        assert journal.begin_turn() == n
        _write(journal, path, f"v{n}".encode())
    journal.begin_turn()  # a turn that changed nothing is skipped by undo
    journal.undo_last_turn()
    assert path.read_bytes() == b"v2"
    journal.undo_last_turn()
    assert path.read_bytes() == b"v1"
    journal.undo_last_turn()
    assert path.read_bytes() == b"v0"
    with pytest.raises(NothingToUndo):
        journal.undo_last_turn()


def test_nothing_to_undo_message() -> None:
    with pytest.raises(NothingToUndo) as info:
        UndoJournal().undo_last_turn()
    assert isinstance(info.value, RiftError)
    assert str(info.value) == "nothing to undo (only write/edit tool changes are tracked)"


def test_journal_keeps_twenty_turns(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"0")
    journal = UndoJournal()
    for n in range(1, 26):
        journal.begin_turn()
        _write(journal, path, str(n).encode())
    assert journal.journaled_turns() == list(range(6, 26))
    for _ in range(20):
        journal.undo_last_turn()
    assert path.read_bytes() == b"5"  # turn 6's prior; older turns were dropped
    with pytest.raises(NothingToUndo):
        journal.undo_last_turn()


def test_custom_turn_cap(tmp_path: Path) -> None:
    journal = UndoJournal(max_turns=3)
    for n in range(5):
        journal.begin_turn()
        journal.record(tmp_path / f"{n}.txt", None)
    assert journal.journaled_turns() == [3, 4, 5]


def test_undo_to_turn_restores_state_at_end_of_target(tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"a0")
    journal = UndoJournal()
    journal.begin_turn()
    _write(journal, a, b"a1")
    journal.begin_turn()
    _write(journal, a, b"a2")
    _write(journal, b, b"b2")
    journal.begin_turn()
    _write(journal, a, b"a3")
    restored = journal.undo_to_turn(1)
    assert set(restored) == {a, b}
    assert a.read_bytes() == b"a1" and not b.exists()
    assert journal.journaled_turns() == [1]
    assert journal.undo_to_turn(1) == []


def test_failed_restore_reports_and_stays_journaled(tmp_path: Path) -> None:
    ok, stuck = tmp_path / "ok.txt", tmp_path / "stuck.txt"
    ok.write_bytes(b"ok0")
    stuck.write_bytes(b"s0")
    journal = UndoJournal()
    journal.begin_turn()
    _write(journal, ok, b"ok1")
    _write(journal, stuck, b"s1")
    stuck.unlink()
    stuck.mkdir()  # a directory now sits where the file must go back
    (stuck / "inside").write_bytes(b"")
    with pytest.raises(UndoFailed) as info:
        journal.undo_last_turn()
    assert isinstance(info.value, OSError) and str(stuck) in str(info.value)
    assert ok.read_bytes() == b"ok0"
    (stuck / "inside").unlink()
    stuck.rmdir()
    assert journal.undo_last_turn() == [stuck]
    assert stuck.read_bytes() == b"s0"


def test_undo_actions_run_once_after_their_turns_files(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"0")
    ran: list[str] = []
    journal = UndoJournal()
    for turn in (1, 2, 3):
        journal.begin_turn()
        _write(journal, path, str(turn).encode())
        journal.on_undo(lambda t=turn: ran.append(f"{t}:{path.read_bytes().decode()}"))
    journal.undo_last_turn()
    assert ran == ["3:2"]  # after the turn's files were put back
    journal.undo_to_turn(0)
    assert ran == ["3:2", "2:0", "1:0"]  # newest turn first, each once
    journal.begin_turn()  # turn 1 again after the rewind: its old action is gone
    _write(journal, tmp_path / "other.txt", b"x")
    journal.undo_last_turn()
    assert ran == ["3:2", "2:0", "1:0"]


def test_a_failing_undo_action_is_reported_and_the_files_still_restored(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"0")
    journal = UndoJournal()
    journal.begin_turn()
    _write(journal, path, b"1")

    def broken() -> None:
        raise OSError("the index is locked")

    journal.on_undo(broken)
    with pytest.raises(UndoFailed, match="the index is locked"):
        journal.undo_last_turn()
    assert path.read_bytes() == b"0"
    assert journal.journaled_turns() == []  # the files are back: nothing left to retry


def test_read_prior(tmp_path: Path) -> None:
    assert read_prior(tmp_path / "missing") is None
    (tmp_path / "f").write_bytes(b"\x00\x01")
    assert read_prior(tmp_path / "f") == b"\x00\x01"
    with pytest.raises(OSError):
        read_prior(tmp_path)  # a directory: not "did not exist"


def test_format_undo_message(tmp_path: Path) -> None:
    text = format_undo_message([tmp_path / "src" / "a.py", Path("/elsewhere/b.txt")], tmp_path)
    assert text == (
        "restored to pre-turn state:\n"
        f"  {Path('src/a.py')}\n"
        f"  {Path('/elsewhere/b.txt')}\n"
        "(note: changes made via bash are not tracked)"
    )

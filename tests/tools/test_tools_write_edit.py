"""write and edit: gate first, journal before disk, CRLF kept, failed matches explained."""

from __future__ import annotations

from pathlib import Path

import pytest
from tooldoubles import RecordingGate, RecordingJournal, call

from rift.errors import ToolError
from rift.tools.base import AppliedEdit, ToolContext, WriteVerdict
from rift.tools.edit import TOOL as EDIT
from rift.tools.write import TOOL as WRITE

# ------------------------------------------------------------------- write


def test_write_creates_parent_dirs_and_journals(
    proj: Path, ctx: ToolContext, gate: RecordingGate, journal: RecordingJournal
) -> None:
    out = call(WRITE, ctx, path="a/b/new.txt", content="héllo\n")
    target = proj / "a" / "b" / "new.txt"
    assert out.ok
    assert out.text == "Wrote 7 bytes to a/b/new.txt"
    assert target.read_text(encoding="utf-8") == "héllo\n"
    assert journal.entries == [(target, None)]
    assert gate.writes == [("write", target, None, "héllo\n")]
    assert out.edit == AppliedEdit(path="a/b/new.txt", old="", new="héllo\n")


def test_write_overwrite_passes_old_text(
    proj: Path, ctx: ToolContext, gate: RecordingGate, journal: RecordingJournal
) -> None:
    (proj / "f.txt").write_text("old\n")
    out = call(WRITE, ctx, path="f.txt", content="new\n")
    assert gate.writes[0][2] == "old\n"
    assert journal.entries == [(proj / "f.txt", b"old\n")]
    assert out.edit is not None and out.edit.old == "old\n"


def test_write_refused_leaves_disk_and_journal_alone(
    proj: Path, ctx: ToolContext, gate: RecordingGate, journal: RecordingJournal
) -> None:
    gate.write_verdict = WriteVerdict(allowed=False, message="user said no: keep it")
    out = call(WRITE, ctx, path="f.txt", content="x")
    assert not out.ok
    assert out.text == "user said no: keep it"
    assert out.edit is None
    assert not (proj / "f.txt").exists()
    assert journal.entries == []


def test_write_partial_review_writes_accepted_text_and_notes(
    proj: Path, ctx: ToolContext, gate: RecordingGate
) -> None:
    gate.write_verdict = WriteVerdict(allowed=True, content="half\n", partial=True)
    out = call(WRITE, ctx, path="f.txt", content="half\nand more\n")
    assert (proj / "f.txt").read_text() == "half\n"
    assert "NOTE" in out.text and "re-read f.txt" in out.text
    assert out.edit is not None and out.edit.new == "half\n"


def test_write_over_binary_still_asks_the_gate(
    proj: Path, ctx: ToolContext, gate: RecordingGate, journal: RecordingJournal
) -> None:
    (proj / "img.bin").write_bytes(b"\x89PNG\0\0data")
    out = call(WRITE, ctx, path="img.bin", content="text now\n")
    assert out.ok
    old = gate.writes[0][2]
    assert old is not None and "\x00" in old  # the gate can tell it is binary
    assert journal.entries == [(proj / "img.bin", b"\x89PNG\0\0data")]
    assert out.edit is not None and out.edit.old == ""


def test_write_to_directory_is_an_error(proj: Path, ctx: ToolContext) -> None:
    (proj / "d").mkdir()
    with pytest.raises(ToolError, match="directory"):
        call(WRITE, ctx, path="d", content="x")


# -------------------------------------------------------------------- edit


def test_edit_replaces_once_and_reports(
    proj: Path, ctx: ToolContext, gate: RecordingGate, journal: RecordingJournal
) -> None:
    (proj / "m.py").write_text("x = 1\ny = 2\n")
    out = call(EDIT, ctx, path="m.py", old_string="y = 2", new_string="y = 3")
    assert out.ok and out.text == "Edited m.py (1 replacement)"
    assert (proj / "m.py").read_text() == "x = 1\ny = 3\n"
    assert gate.writes == [("edit", proj / "m.py", "x = 1\ny = 2\n", "x = 1\ny = 3\n")]
    assert journal.entries == [(proj / "m.py", b"x = 1\ny = 2\n")]
    assert out.edit == AppliedEdit(path="m.py", old="x = 1\ny = 2\n", new="x = 1\ny = 3\n")


def test_edit_lf_snippet_matches_crlf_file_and_keeps_crlf(proj: Path, ctx: ToolContext) -> None:
    (proj / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    call(EDIT, ctx, path="w.txt", old_string="one\ntwo\n", new_string="uno\ndos\n")
    assert (proj / "w.txt").read_bytes() == b"uno\r\ndos\r\nthree\r\n"


def test_edit_crlf_snippet_matches_lf_file_and_keeps_lf(proj: Path, ctx: ToolContext) -> None:
    (proj / "u.txt").write_bytes(b"one\ntwo\nthree\n")
    call(EDIT, ctx, path="u.txt", old_string="two\r\nthree", new_string="2\r\n3")
    assert (proj / "u.txt").read_bytes() == b"one\n2\n3\n"


def test_edit_multiple_matches_needs_context_or_replace_all(proj: Path, ctx: ToolContext) -> None:
    (proj / "r.txt").write_text("foo\nbar\nfoo\nfoo\n")
    with pytest.raises(ToolError, match=r"occurs 3 times .*more context.*replace_all"):
        call(EDIT, ctx, path="r.txt", old_string="foo", new_string="baz")
    out = call(EDIT, ctx, path="r.txt", old_string="foo", new_string="baz", replace_all=True)
    assert out.text == "Edited r.txt (3 replacements)"
    assert (proj / "r.txt").read_text() == "baz\nbar\nbaz\nbaz\n"


def test_edit_not_found_points_at_whitespace_difference(proj: Path, ctx: ToolContext) -> None:
    (proj / "s.py").write_text("def f():\n    if x:\n        return 1\n")
    with pytest.raises(ToolError) as err:
        call(EDIT, ctx, path="s.py", old_string="if x:\n  return 1", new_string="pass")
    assert "different whitespace" in str(err.value)
    assert "line 2" in str(err.value)


def test_edit_not_found_names_closest_line(proj: Path, ctx: ToolContext) -> None:
    (proj / "c.py").write_text("import os\n\ndef compute_total(items):\n    return sum(items)\n")
    with pytest.raises(ToolError) as err:
        call(EDIT, ctx, path="c.py", old_string="def compute_totals(items, tax):", new_string="x")
    message = str(err.value)
    assert "Closest match is line 3: `def compute_total(items):`" in message
    assert "Re-read" in message


def test_edit_not_found_without_similar_line_gives_generic_hint(
    proj: Path, ctx: ToolContext
) -> None:
    (proj / "g.txt").write_text("alpha\nbeta\n")
    with pytest.raises(ToolError) as err:
        call(EDIT, ctx, path="g.txt", old_string="completely unrelated text", new_string="x")
    message = str(err.value)
    assert "Closest match" not in message and "Re-read the file" in message


def test_closest_match_display_is_capped(proj: Path, ctx: ToolContext) -> None:
    long_line = "value = compute(" + ", ".join(f"arg{n}" for n in range(60)) + ")"
    (proj / "l.py").write_text(long_line + "\n")
    with pytest.raises(ToolError) as err:
        call(EDIT, ctx, path="l.py", old_string=long_line.replace("arg1,", "argX,"), new_string="")
    shown = str(err.value).split("`")[1]
    assert len(shown) == 121 and shown.endswith("…")


@pytest.mark.parametrize(
    ("old", "new", "match"),
    [("", "x", "old_string is empty"), ("same", "same", "identical")],
)
def test_edit_argument_errors(proj: Path, ctx: ToolContext, old: str, new: str, match: str) -> None:
    (proj / "f.txt").write_text("same\n")
    with pytest.raises(ToolError, match=match):
        call(EDIT, ctx, path="f.txt", old_string=old, new_string=new)


def test_edit_missing_and_binary_files(proj: Path, ctx: ToolContext) -> None:
    (proj / "main.rs").write_text("fn main() {}\n")
    with pytest.raises(ToolError, match=r"Did you mean: main\.rs\?"):
        call(EDIT, ctx, path="src/main.rs", old_string="a", new_string="b")
    (proj / "b.bin").write_bytes(b"a\0b")
    with pytest.raises(ToolError, match="binary"):
        call(EDIT, ctx, path="b.bin", old_string="a", new_string="b")


def test_edit_refused_by_gate(
    proj: Path, ctx: ToolContext, gate: RecordingGate, journal: RecordingJournal
) -> None:
    (proj / "f.txt").write_text("a\n")
    gate.write_verdict = WriteVerdict(allowed=False, message="denied by rule 'edit(*)'")
    out = call(EDIT, ctx, path="f.txt", old_string="a", new_string="b")
    assert not out.ok and out.text == "denied by rule 'edit(*)'"
    assert (proj / "f.txt").read_text() == "a\n"
    assert journal.entries == []

"""Editing one line of a file that is not UTF-8 changes no byte outside that line
(issue 30): a latin-1 .py and a cp1252 .csv, through the real edit and write tools."""

from __future__ import annotations

from pathlib import Path

from tooldoubles import call

from rift.tools.base import ToolContext
from rift.tools.edit import TOOL as EDIT
from rift.tools.write import TOOL as WRITE

LATIN1 = "# -*- coding: latin-1 -*-\nNAME = 'café'\nVALUE = 1\nCITY = 'Zürich'\n"
CP1252 = "name;price\nthé;3 €\nbread;2\ncrème;4 €\n"


def test_a_latin1_python_file_keeps_its_other_bytes(ctx: ToolContext, proj: Path) -> None:
    (proj / "mod.py").write_bytes(LATIN1.encode("latin-1"))
    out = call(EDIT, ctx, path="mod.py", old_string="VALUE = 1", new_string="VALUE = 2")
    assert out.ok, out.text
    assert (proj / "mod.py").read_bytes() == LATIN1.replace("1\n", "2\n").encode("latin-1")


def test_a_cp1252_csv_keeps_its_other_bytes(ctx: ToolContext, proj: Path) -> None:
    (proj / "prices.csv").write_bytes(CP1252.encode("cp1252"))
    out = call(EDIT, ctx, path="prices.csv", old_string="bread;2", new_string="bread;2.5")
    assert out.ok, out.text
    assert (proj / "prices.csv").read_bytes() == CP1252.replace("2\n", "2.5\n").encode("cp1252")


def test_a_line_copied_back_with_its_replacement_characters(ctx: ToolContext, proj: Path) -> None:
    """The model sees é as U+FFFD; the edited line itself keeps the bytes it copied back,
    and a new accented character is written in the file's own encoding."""
    (proj / "prices.csv").write_bytes(CP1252.encode("cp1252"))
    shown = "th\ufffd;3 \ufffd"
    out = call(EDIT, ctx, path="prices.csv", old_string=shown, new_string=shown + " (é)")
    assert out.ok, out.text
    expected = CP1252.replace("thé;3 €", "thé;3 € (é)").encode("cp1252")
    assert (proj / "prices.csv").read_bytes() == expected


def test_a_whole_file_write_keeps_unchanged_lines(ctx: ToolContext, proj: Path) -> None:
    (proj / "mod.py").write_bytes(LATIN1.encode("latin-1"))
    shown = (proj / "mod.py").read_bytes().decode("utf-8", errors="replace")
    out = call(WRITE, ctx, path="mod.py", content=shown + "MORE = 3\n")
    assert out.ok, out.text
    assert (proj / "mod.py").read_bytes() == (LATIN1 + "MORE = 3\n").encode("latin-1")


def test_utf8_files_are_written_as_before(ctx: ToolContext, proj: Path) -> None:
    (proj / "u.py").write_text("A = 'é'\nB = 1\n", encoding="utf-8")
    assert call(EDIT, ctx, path="u.py", old_string="B = 1", new_string="B = 'ü'").ok
    assert (proj / "u.py").read_text(encoding="utf-8") == "A = 'é'\nB = 'ü'\n"

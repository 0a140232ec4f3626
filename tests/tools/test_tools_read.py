"""read: numbering, windows, caps, and the errors that steer the model."""

from __future__ import annotations

from pathlib import Path

import pytest
from tooldoubles import RecordingGate, call

from rift.errors import ToolError
from rift.tools.base import ToolContext
from rift.tools.read import TOOL as READ


def test_numbers_lines_and_strips_crlf(proj: Path, ctx: ToolContext) -> None:
    (proj / "a.txt").write_bytes(b"alpha\r\nbeta\n")
    out = call(READ, ctx, path="a.txt")
    assert out.ok
    assert out.text == "    1\talpha\n    2\tbeta\n"


def test_offset_limit_and_trailer(proj: Path, ctx: ToolContext) -> None:
    (proj / "a.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    out = call(READ, ctx, path="a.txt", offset="3", limit=2)
    assert out.text.startswith("    3\tline 3\n    4\tline 4\n")
    assert "showing lines 3-4 of 10; continue with offset=5" in out.text
    last = call(READ, ctx, path="a.txt", offset=9)
    assert "continue" not in last.text
    assert last.text == "    9\tline 9\n   10\tline 10\n"


def test_offset_past_end_names_line_count(proj: Path, ctx: ToolContext) -> None:
    (proj / "a.txt").write_text("one\ntwo\n")
    with pytest.raises(ToolError, match=r"\(2 lines\)"):
        call(READ, ctx, path="a.txt", offset=5)


def test_empty_file(proj: Path, ctx: ToolContext) -> None:
    (proj / "e.txt").write_text("")
    assert call(READ, ctx, path="e.txt").text == "(empty file)\n"


def test_long_lines_are_cut(proj: Path, ctx: ToolContext) -> None:
    (proj / "wide.txt").write_text("x" * 5000 + "\n")
    text = call(READ, ctx, path="wide.txt").text
    assert text.count("x") == 2000
    assert "[line cut]" in text


def test_output_stops_at_50k_bytes(proj: Path, ctx: ToolContext) -> None:
    (proj / "big.txt").write_text("".join("y" * 99 + "\n" for _ in range(2000)))
    text = call(READ, ctx, path="big.txt").text
    body, _, tail = text.partition("\n[output stopped")
    assert len(body.encode()) <= 50_000
    assert "50000 bytes" in tail
    assert "continue with offset=" in tail


def test_binary_is_an_error(proj: Path, ctx: ToolContext) -> None:
    (proj / "b.bin").write_bytes(b"abc\0def")
    with pytest.raises(ToolError, match="binary"):
        call(READ, ctx, path="b.bin")


def test_invalid_utf8_is_replaced(proj: Path, ctx: ToolContext) -> None:
    (proj / "l1.txt").write_bytes(b"caf\xe9\n")
    assert "caf\ufffd" in call(READ, ctx, path="l1.txt").text


def test_missing_file_suggests_similar_names(proj: Path, ctx: ToolContext) -> None:
    (proj / "src" / "pkg").mkdir(parents=True)
    (proj / "src" / "pkg" / "config.py").write_text("x = 1\n")
    with pytest.raises(ToolError, match=r"Did you mean: src/pkg/config\.py\?"):
        call(READ, ctx, path="config.py")
    with pytest.raises(ToolError, match=r"Did you mean: .*src/pkg/config\.py"):
        call(READ, ctx, path="src/confg.py")


def test_missing_file_without_candidates_advises_ls(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="ls or glob"):
        call(READ, ctx, path="nothing_like_it.rs")


def test_directory_says_use_ls(proj: Path, ctx: ToolContext) -> None:
    (proj / "d").mkdir()
    with pytest.raises(ToolError, match="use ls"):
        call(READ, ctx, path="d")


def test_deny_rule_checked_first(proj: Path, ctx: ToolContext, gate: RecordingGate) -> None:
    secret = proj / ".env"
    gate.denied_paths.add(secret)
    with pytest.raises(ToolError, match="blocked by permission rule"):
        call(READ, ctx, path=".env")  # the file does not even exist: the deny comes first
    assert gate.reads == [secret]

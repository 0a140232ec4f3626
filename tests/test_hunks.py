"""Edit review segments (Myers line diff) and the short diff previews."""

from __future__ import annotations

import itertools
import time
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rift.core.permissions.hunks import (
    _lcs_bits,
    _lcs_pairs,
    count_changes,
    diff_segments,
    preview_diff,
    reassemble,
)


def same(*lines: str) -> dict[str, Any]:
    return {"same": True, "lines": list(lines)}


def change(old: list[str], new: list[str]) -> dict[str, Any]:
    return {"same": False, "old": old, "new": new}


# ------------------------------------------------------------ pinned examples


def test_two_replacements() -> None:
    assert diff_segments("a\nb\nc\nd\ne", "a\nB\nc\nd\nE") == [
        same("a"),
        change(["b"], ["B"]),
        same("c", "d"),
        change(["e"], ["E"]),
    ]


def test_pure_insertion() -> None:
    assert diff_segments("a\nc", "a\nb\nc") == [same("a"), change([], ["b"]), same("c")]


def test_wire_form() -> None:
    assert diff_segments("a\nb\nc", "a\nB\nc") == [
        {"same": True, "lines": ["a"]},
        {"same": False, "old": ["b"], "new": ["B"]},
        {"same": True, "lines": ["c"]},
    ]


def test_identical_is_one_same_segment() -> None:
    assert diff_segments("x\ny\n", "x\ny\n") == [same("x", "y", "")]
    assert diff_segments("", "") == [same("")]


def test_empty_old_is_all_new_and_empty_new_is_all_old() -> None:
    assert diff_segments("", "x\ny") == [change([], ["x", "y"])]
    assert diff_segments("x\ny", "") == [change(["x", "y"], [])]
    for old, new in (("", "x\ny"), ("", "x\n"), ("x\n", ""), ("", "\n")):
        segments = diff_segments(old, new)
        assert reassemble(segments, [True]) == new
        assert reassemble(segments, [False]) == old


def test_trailing_newline_is_a_final_empty_line() -> None:
    assert diff_segments("a\n", "a") == [same("a"), change([""], [])]
    assert diff_segments("a", "a\n") == [same("a"), change([], [""])]


def test_total_rewrite_past_the_cap_is_one_whole_file_change() -> None:
    old = "".join(f"o{i}\n" for i in range(3000))
    new = "".join(f"n{i}\n" for i in range(3000))
    started = time.perf_counter()
    segments = diff_segments(old, new)
    elapsed = time.perf_counter() - started
    assert len(segments) == 1
    assert not segments[0]["same"]
    assert len(segments[0]["old"]) == 3001
    assert len(segments[0]["new"]) == 3001
    assert reassemble(segments, [True]) == new
    assert elapsed < 0.5


def test_cap_is_the_edit_distance() -> None:
    old, new = "a\nb\nc\nd", "a\nB\nc\nD"  # distance 4
    assert len(diff_segments(old, new, max_d=4)) == 4
    assert diff_segments(old, new, max_d=3) == [change(old.split("\n"), new.split("\n"))]


def test_shuffled_lines_past_the_cap_still_collapse() -> None:
    old = "\n".join(str(i) for i in range(200))
    new = "\n".join(str(i) for i in reversed(range(200)))
    assert len(diff_segments(old, new, max_d=50)) == 1
    segments = diff_segments(old, new)
    assert reassemble(segments, [True] * len(segments)) == new


def _scattered(lines: int, changes: int) -> tuple[str, str]:
    old = [f"line {i} = compute({i})" for i in range(lines)]
    new = list(old)
    for k in range(changes):
        at = (k * lines) // changes + 7
        if k % 3 == 0:
            new[at] = new[at] + "  # edited"
        elif k % 3 == 1:
            new.insert(at, f"inserted {k}")
        else:
            new[at], new[at + 1] = new[at + 1], new[at]  # a move: lines exist on both sides
    return "\n".join(old) + "\n", "\n".join(new) + "\n"


def test_ten_thousand_lines_with_fifty_changes() -> None:
    """Correctness at benchmark size; the timing itself lives in bench/run.py."""
    old, new = _scattered(10_000, 50)
    segments = diff_segments(old, new)
    changes = [s for s in segments if not s["same"]]
    assert 50 <= len(changes) <= 100  # a swapped pair is a deletion plus an insertion
    assert reassemble(segments, [True] * len(changes)) == new
    assert reassemble(segments, [False] * len(changes)) == old


def test_short_accept_mask_rejects_the_rest() -> None:
    segments = diff_segments("a\nb\nc\nd\ne", "a\nB\nc\nd\nE")
    assert reassemble(segments, [True]) == "a\nB\nc\nd\ne"
    assert reassemble(segments, [False, True]) == "a\nb\nc\nd\nE"


# --------------------------------------------------------------- properties

lines_strategy = st.lists(st.sampled_from(["a", "b", "c", "", "d e", "x"]), max_size=25)


def _lcs(a: list[str], b: list[str]) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        prev_diag = 0
        for j, y in enumerate(b, start=1):
            prev_diag, row[j] = row[j], prev_diag + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


@settings(max_examples=400, deadline=None)
@given(old_lines=lines_strategy, new_lines=lines_strategy, data=st.data())
def test_segments_are_a_valid_minimal_merge(
    old_lines: list[str], new_lines: list[str], data: st.DataObject
) -> None:
    old, new = "\n".join(old_lines), "\n".join(new_lines)
    segments = diff_segments(old, new)
    changes = [s for s in segments if not s["same"]]

    assert reassemble(segments, [True] * len(changes)) == new
    assert reassemble(segments, [False] * len(changes)) == old

    for left, right in itertools.pairwise(segments):
        assert left["same"] != right["same"]  # same and change alternate
    for segment in segments:
        assert segment["lines"] if segment["same"] else (segment["old"] or segment["new"])

    # Every segment takes a contiguous slice of both files, in order.
    a, b = old.split("\n"), new.split("\n")
    i = j = 0
    mask = data.draw(st.lists(st.booleans(), min_size=len(changes), max_size=len(changes)))
    merged: list[str] = []
    picks = iter(mask)
    for segment in segments:
        taken_old = segment["lines"] if segment["same"] else segment["old"]
        taken_new = segment["lines"] if segment["same"] else segment["new"]
        assert a[i : i + len(taken_old)] == taken_old
        assert b[j : j + len(taken_new)] == taken_new
        i, j = i + len(taken_old), j + len(taken_new)
        merged += segment["lines"] if segment["same"] else taken_new if next(picks) else taken_old
    if old and new:
        assert (i, j) == (len(a), len(b))
    assert reassemble(segments, mask) == "\n".join(merged)

    # Myers finds a shortest edit script: the kept lines are a longest common subsequence.
    if old and new and old != new:
        kept = sum(len(s["lines"]) for s in segments if s["same"])
        assert kept == _lcs(a, b)


def _edited(draw: st.DrawFn, vocab: int, size: int) -> tuple[list[str], list[str]]:
    """A file of `size` lines over `vocab` words and a randomly edited copy of it."""
    word = st.integers(0, vocab - 1).map(lambda i: f"w{i}")
    old = draw(st.lists(word, min_size=size // 2, max_size=size))
    new = list(old)
    for _ in range(draw(st.integers(40, 200))):
        at = draw(st.integers(0, len(new)))
        kind = draw(st.sampled_from(["replace", "insert", "delete", "swap"]))
        if kind == "insert" or not new:
            new.insert(at, draw(word | st.just(f"new {at}")))
        elif kind == "replace":
            new[min(at, len(new) - 1)] = draw(word)
        elif kind == "delete":
            del new[min(at, len(new) - 1)]
        elif at + 1 < len(new):
            new[at], new[at + 1] = new[at + 1], new[at]
    return old, new


@st.composite
def _big_pairs(draw: st.DrawFn) -> tuple[list[str], list[str], int]:
    vocab = draw(st.sampled_from([2, 5, 40, 10_000]))  # repeated lines to near-unique ones
    old, new = _edited(draw, vocab, draw(st.sampled_from([80, 300])))
    return old, new, draw(st.sampled_from([10, 65, 100, 150, 2000]))


@settings(max_examples=120, deadline=None)
@given(_big_pairs())
def test_distances_past_myers_first_try_stay_minimal_and_capped(
    pair: tuple[list[str], list[str], int],
) -> None:
    """Edits far enough apart that Myers' first, small try fails and an exact LCS
    bound (bit-parallel or Hunt–Szymanski) decides between the cap and the search."""
    a, b, cap = pair
    old, new = "\n".join(a), "\n".join(b)
    segments = diff_segments(old, new, max_d=cap)
    changes = [s for s in segments if not s["same"]]
    assert reassemble(segments, [True] * len(changes)) == new
    assert reassemble(segments, [False] * len(changes)) == old
    if old in ("", new) or not new:
        return
    a, b = old.split("\n"), new.split("\n")
    distance = len(a) + len(b) - 2 * _lcs(a, b)
    if distance > min(cap, len(a) + len(b)):
        assert segments == [change(a, b)]
    else:
        assert sum(len(s["lines"]) for s in segments if s["same"]) == _lcs(a, b)


@pytest.mark.parametrize("blank_every", [0, 5], ids=["unique lines", "many blank lines"])
def test_forty_swaps_in_three_thousand_lines(blank_every: int) -> None:
    """Distance 80: past Myers' first try, so the exact LCS (Hunt–Szymanski for
    unique lines, bit-parallel with hundreds of blank lines) decides the cap."""
    old = ["" if blank_every and i % blank_every == 0 else f"line {i}" for i in range(3000)]
    new = list(old)
    for k in range(40):
        at = 70 * k + 11
        new[at], new[at + 1] = new[at + 1], new[at]
    distance = len(old) + len(new) - 2 * (len(old) - 40)
    segments = diff_segments("\n".join(old), "\n".join(new), max_d=distance)
    assert sum(len(s["lines"]) for s in segments if s["same"]) == len(old) - 40
    assert reassemble(segments, [True] * len(segments)) == "\n".join(new)
    collapsed = diff_segments("\n".join(old), "\n".join(new), max_d=distance - 1)
    assert collapsed == [change(old, new)]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 6), max_size=120),
    st.lists(st.integers(0, 6), min_size=1, max_size=120),
)
def test_both_lcs_methods_are_exact(a: list[int], b: list[int]) -> None:
    a = [code for code in a if code in b]  # the callers' precondition
    words = [str(code) for code in a], [str(code) for code in b]
    assert _lcs_bits(a, b, Counter(b)) == _lcs(*words)
    assert _lcs_pairs(a, b) == _lcs(*words)


# ----------------------------------------------------------------- previews


def test_preview_pinned_examples() -> None:
    assert preview_diff("a\nb\nc\nd", "a\nB\nC\nd", 40) == ["@@ line 2 @@", "-b", "-c", "+B", "+C"]
    assert preview_diff("", "x\ny", 40) == ["+x", "+y"]
    assert preview_diff("same\n", "same", 40) == []


def test_preview_truncates_past_the_cap() -> None:
    old = "\n".join(f"old {i}" for i in range(100))
    new = "\n".join(f"new {i}" for i in range(100))
    lines = preview_diff(old, new, 10)
    assert len(lines) == 11
    assert lines[-1] == "… [190 more diff lines]"
    assert "more diff lines" in lines[-1]


def test_preview_only_suffix_trimmed() -> None:
    assert preview_diff("a\nz", "b\nz", 40) == ["@@ line 1 @@", "-a", "+b"]


def test_preview_splits_like_rust_lines() -> None:
    assert preview_diff("a\r\nb\x0cc\n", "a\nb\x0cC\n", 40) == [
        "@@ line 2 @@",
        "-b\x0cc",
        "+b\x0cC",
    ]


def test_count_changes() -> None:
    assert count_changes(["@@ line 2 @@", "-b", "-c", "+B", "+C"]) == (2, 2)
    assert count_changes(["+x", "+y", "… [3 more diff lines]"]) == (2, 0)
    assert count_changes([]) == (0, 0)

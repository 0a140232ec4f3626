"""Edit review segments and diff previews.

Two views of one edit, with deliberately different line splitting:

* `diff_segments` feeds the per-hunk review (serve `edit_review.segments`, the
  VS Code reviewer). It splits on "\\n" exactly, so a trailing newline is a final
  empty line and `reassemble` can rebuild either file byte for byte from any
  choice of hunks.
* `preview_diff` is the short human preview shown in approval prompts and after
  an edit. It splits like Rust's `str::lines()` and only trims the common prefix
  and suffix, because a person skims it; it never has to be re-applied.

The diff is Myers' greedy O(ND) algorithm over interned lines, with exact reductions
(common ends trimmed, lines on one side only set aside, an exact LCS length deciding
whether the distance exceeds the cap) so neither a 10,000-line file with a few edits nor
a total rewrite pays Myers' quadratic worst case.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from itertools import compress
from operator import not_
from typing import Any

from rift.events import DiffRegion

DEFAULT_MAX_D = 2000
"""Edit-distance cap: past it the review is one whole-file hunk (bounds the diff's cost)."""

Segment = dict[str, Any]
"""Wire form: `{"same": True, "lines": [...]}` or `{"same": False, "old": [...], "new": [...]}`."""


def diff_segments(old: str, new: str, max_d: int = DEFAULT_MAX_D) -> list[Segment]:
    """Split an edit into alternating unchanged and changed segments, in file order, none
    empty. Past `max_d` the edit is one whole-file change, so a total rewrite neither costs
    quadratic time nor shows hundreds of hunks."""
    if old == new:
        return [{"same": True, "lines": old.split("\n")}]
    if not old:
        return [{"same": False, "old": [], "new": new.split("\n")}]
    if not new:
        return [{"same": False, "old": old.split("\n"), "new": []}]
    a, b = old.split("\n"), new.split("\n")
    runs = _match_lines(a, b, min(len(a) + len(b), max_d))
    if runs is None:
        return [{"same": False, "old": a, "new": b}]
    return _group(a, b, runs)


def reassemble(segments: Sequence[Segment], accept: Sequence[bool]) -> str:
    """Rebuild the file from the hunks the user kept: `accept[i]` chooses the new side of
    the i-th change; a missing entry counts as rejected, so a short mask never invents content."""
    lines: list[str] = []
    change = 0
    for segment in segments:
        if segment["same"]:
            lines += segment["lines"]
            continue
        kept = change < len(accept) and accept[change]
        lines += segment["new"] if kept else segment["old"]
        change += 1
    return "\n".join(lines)


Run = tuple[int, int, int]
"""`(i, j, length)`: old lines i.. and new lines j.. match for `length` lines."""


def _match_lines(a: list[str], b: list[str], cap: int) -> list[Run] | None:
    """Matched runs of a shortest edit script, in order, or None past `cap`."""
    n, m = len(a), len(b)
    head, tail = _common_ends(a, b)
    codes_a, codes_b = _intern(a[head : n - tail], b[head : m - tail])
    # Lines present on one side only can never match: drop them before the search
    # (GNU diff does the same), remembering where the survivors came from.
    shared = set(codes_a).intersection(codes_b)
    side_a, side_b = _Kept(codes_a, shared), _Kept(codes_b, shared)
    total = len(codes_a) + len(codes_b)
    if total - 2 * min(len(side_a.codes), len(side_b.codes)) > cap:  # a lower bound on D
        return None
    dropped = total - len(side_a.codes) - len(side_b.codes)
    inner = _search(side_a.codes, side_b.codes, cap - dropped)
    if inner is None:
        return None
    runs = [(0, 0, head)] if head else []
    runs += _unfold(inner, side_a, side_b, head)
    if tail:
        runs.append((n - tail, m - tail, tail))
    return runs


def _intern(a: list[str], b: list[str]) -> tuple[list[int], list[int]]:
    """Both sides' lines as small ints (equal lines, equal ints), in C-level passes only."""
    lines = dict.fromkeys(a)
    lines.update(dict.fromkeys(b))
    ids = dict(zip(lines, range(len(lines)), strict=True))
    return list(map(ids.__getitem__, a)), list(map(ids.__getitem__, b))


class _Kept:
    """One side's lines that occur on both sides: their codes, where they came from,
    and the kept indices t with dropped lines just before them (a run splits there)."""

    __slots__ = ("codes", "gaps", "positions")

    def __init__(self, codes: list[int], shared: set[int]) -> None:
        flags = list(map(shared.__contains__, codes))
        self.codes = list(compress(codes, flags))
        self.positions = list(compress(range(len(codes)), flags))
        dropped = compress(range(len(codes)), map(not_, flags))
        self.gaps = sorted({where - rank for rank, where in enumerate(dropped)})


def _unfold(runs: list[Run], side_a: _Kept, side_b: _Kept, head: int) -> list[Run]:
    """Runs over the kept lines as runs over the files: split where dropped lines were, found
    by bisection over the gaps, so a long run with a few dropped lines costs a few steps."""
    out: list[Run] = []
    at_a, at_b = side_a.positions, side_b.positions
    for x, y, length in runs:
        cuts = sorted({*_cuts(side_a.gaps, x, length), *_cuts(side_b.gaps, y, length)})
        start = 0
        for cut in [*cuts, length]:
            out.append((head + at_a[x + start], head + at_b[y + start], cut - start))
            start = cut
    return out


def _cuts(gaps: list[int], start: int, length: int) -> list[int]:
    """The gaps strictly inside kept lines start .. start + length - 1, relative to `start`."""
    lo, hi = bisect_right(gaps, start), bisect_right(gaps, start + length - 1)
    return [t - start for t in gaps[lo:hi]]


MYERS_FIRST_D = 64
"""The edit distance Myers is tried up to before anything else: an edit this small
(the usual agent edit, once unique lines are set aside) costs it well under a
millisecond, less than any LCS bound would."""
LCS_MAX_PAIRS = 200_000
"""Above this cost (in matching line pairs) the exact-LCS precheck would cost more than it saves."""
BIT_WORDS_PER_PAIR = 32
"""A 64-bit word of the bit-parallel LCS costs about 1/32 of a Hunt–Szymanski pair in CPython."""


def _search(a: list[int], b: list[int], limit: int) -> list[Run] | None:
    """Myers' matched runs for `a` → `b`, or None when the distance exceeds `limit`. Past
    `MYERS_FIRST_D` the exact LCS length says whether the distance is over `limit` before
    Myers' quadratic search runs; Myers' result does not depend on its limit once the
    distance is within it, so every path gives the same runs."""
    quick = _myers(a, b, min(limit, MYERS_FIRST_D))
    if quick is not None or limit <= MYERS_FIRST_D:
        return quick
    lcs = _lcs_length(a, b)
    if lcs is not None and len(a) + len(b) - 2 * lcs > limit:
        return None  # the exact distance is over the cap: skip the quadratic search
    return _myers(a, b, limit)


def _lcs_length(a: list[int], b: list[int]) -> int | None:
    """Exact LCS length by the cheaper of two methods, or None when both cost too much:
    Hunt–Szymanski costs one bisection per matching pair (dear for a line repeated hundreds
    of times), the bit-parallel method one big-integer step per line of `a`. Every code of
    `a` must occur in `b`."""
    counts = Counter(b)
    pairs = sum(map(counts.__getitem__, a))
    words = len(a) * (len(b) // 64 + 1)
    if words < BIT_WORDS_PER_PAIR * pairs:
        return _lcs_bits(a, b, counts) if words <= BIT_WORDS_PER_PAIR * LCS_MAX_PAIRS else None
    return _lcs_pairs(a, b) if pairs <= LCS_MAX_PAIRS else None


def _lcs_pairs(a: list[int], b: list[int]) -> int:
    """Hunt–Szymanski: the longest increasing run of match positions, O(r log n)."""
    positions: dict[int, list[int]] = {}
    for j, code in enumerate(b):
        positions.setdefault(code, []).append(j)
    tails: list[int] = []  # tails[k]: smallest end position of a common run of length k+1
    for code in a:
        for j in reversed(positions[code]):
            k = bisect_left(tails, j)
            if k == len(tails):
                tails.append(j)
            else:
                tails[k] = j
    return len(tails)


def _lcs_bits(a: list[int], b: list[int], counts: Counter[int]) -> int:
    """Bit-parallel LCS length (Allison–Dix, in Hyyrö's form) on Python integers: bit j of
    `row` is 0 where the LCS so far grows by one at `b[j]`."""
    masks = dict(zip(b, map((1).__lshift__, range(len(b))), strict=True))  # last position
    repeated = {code for code, count in counts.items() if count > 1}
    for j in compress(range(len(b)), map(repeated.__contains__, b)):
        masks[b[j]] |= 1 << j
    full = (1 << len(b)) - 1
    row = full
    for mask in map(masks.__getitem__, a):
        match = row & mask
        row = ((row + match) | (row ^ match)) & full  # row ^ match: row - match, no borrows
    return len(b) - row.bit_count()


def _myers(a: list[int], b: list[int], limit: int) -> list[Run] | None:
    """Myers' forward greedy search; matched runs in order, or None if D > limit. `trace[d]`
    keeps only the diagonals -d..d, so memory is O(D^2) rather than O((N+M)·D)."""
    n, m = len(a), len(b)
    max_d = min(n + m, limit)
    if max_d < 0:
        return None
    offset = max_d + 1
    v = [0] * (2 * max_d + 3)
    trace: list[list[int]] = []
    for d in range(max_d + 1):
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[offset + k - 1] < v[offset + k + 1]):
                x = v[offset + k + 1]
            else:
                x = v[offset + k - 1] + 1
            y = x - k
            if x < n and y < m and a[x] == b[y]:
                x = _slide(a, b, x + 1, x + 1 - k)
                y = x - k
            v[offset + k] = x
            if x >= n and y >= m:
                return _backtrack(trace, n, m)
        trace.append(v[offset - d : offset + d + 1])
    return None


def _slide(a: Sequence[object], b: Sequence[object], x: int, y: int) -> int:
    """The end of the run of equal lines from a[x], b[y]: compares doubling slices, then
    halves the last, so a long snake costs a few C-level comparisons, not a Python loop."""
    step = 8
    while True:
        width = min(step, len(a) - x, len(b) - y)
        if a[x : x + width] != b[y : y + width]:
            break
        x, y = x + width, y + width
        if width < step:
            return x  # an end of a or b
        step *= 2
    while width > 1:  # a[x : x + width] differs somewhere; its first line may not
        half = width // 2
        if a[x : x + half] == b[y : y + half]:
            x, y, width = x + half, y + half, width - half
        else:
            width = half
    return x


def _backtrack(trace: list[list[int]], n: int, m: int) -> list[Run]:
    """Walk the snapshots back from (n, m), collecting the snakes as runs."""
    runs: list[Run] = []
    x, y = n, m
    for d in range(len(trace), 0, -1):
        prev = trace[d - 1]  # diagonals -(d-1)..d-1 at index k + d - 1
        k = x - y
        down = k == -d or (k != d and prev[k - 1 + d - 1] < prev[k + 1 + d - 1])
        prev_k = k + 1 if down else k - 1
        prev_x = prev[prev_k + d - 1]
        start = prev_x if down else prev_x + 1
        if x > start:
            runs.append((start, start - k, x - start))
        x, y = prev_x, prev_x - prev_k
    if x:
        runs.append((0, 0, x))
    runs.reverse()
    return runs


def _group(a: list[str], b: list[str], runs: list[Run]) -> list[Segment]:
    """Turn matched runs into alternating same/change segments (slices, not line loops)."""
    segments: list[Segment] = []
    i = j = 0
    for x, y, length in runs:
        if x > i or y > j:
            segments.append({"same": False, "old": a[i:x], "new": b[j:y]})
        if segments and segments[-1]["same"]:
            segments[-1]["lines"] += a[x : x + length]
        else:
            segments.append({"same": True, "lines": a[x : x + length]})
        i, j = x + length, y + length
    if i < len(a) or j < len(b):
        segments.append({"same": False, "old": a[i:], "new": b[j:]})
    return segments


def preview_diff(old: str, new: str, max_lines: int) -> list[str]:
    """A compact `-`/`+` preview of an edit for prompts and the `edit_diff` event: only the
    common ends are trimmed (`"@@ line K @@"` leads then), and past `max_lines` one
    `"… [N more diff lines]"` line replaces the tail."""
    a, b = _rust_lines(old), _rust_lines(new)
    if a == b:
        return []
    head, tail = _common_ends(a, b)
    out = [f"@@ line {head + 1} @@"] if head or tail else []
    out += ["-" + line for line in a[head : len(a) - tail]]
    out += ["+" + line for line in b[head : len(b) - tail]]
    if len(out) > max_lines:
        more = len(out) - max(max_lines, 0)
        out = [*out[: max(max_lines, 0)], f"… [{more} more diff lines]"]
    return out


def _common_ends(a: Sequence[str], b: Sequence[str]) -> tuple[int, int]:
    """Lines equal at the start of both, then at the end of what is left of both."""
    head = _slide(a, b, 0, 0)
    stop = head - 1 if head else None
    return head, _slide(a[:stop:-1], b[:stop:-1], 0, 0)


def diff_region(old: str, new: str, max_lines: int) -> DiffRegion:
    """The region `preview_diff` shows, as data: where it starts, the old and new lines
    between the common ends (each list capped at `max_lines`), and whether the file
    is new (nothing before)."""
    a, b = _rust_lines(old), _rust_lines(new)
    head, tail = _common_ends(a, b)
    removed, added = a[head : len(a) - tail], b[head : len(b) - tail]
    return DiffRegion(head + 1, removed[:max_lines], added[:max_lines], created=old == "")


def preview_region(lines: Sequence[str]) -> DiffRegion:
    """The region a `preview_diff` shows (an ask's detail), read back by the code that
    wrote it, so a face gets data rather than the preview's format."""
    start, old, new, trimmed = 1, [], [], False
    for line in lines:
        if line.startswith("@@ line ") and line.endswith(" @@"):
            start, trimmed = int(line[len("@@ line ") : -len(" @@")]), True
        elif line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
    return DiffRegion(start, old, new, created=not old and not trimmed)


def changed_lines(old: str, new: str) -> tuple[int, int]:
    """(added, removed) lines as `git diff --stat` counts them, over the real line diff: the
    preview trims only the common ends, so two changes twenty lines apart would count forty."""
    a, b = _rust_lines(old), _rust_lines(new)
    if not a or not b:
        return len(b), len(a)
    added = removed = 0
    for segment in diff_segments("\n".join(a), "\n".join(b)):
        if not segment["same"]:
            added += len(segment["new"])
            removed += len(segment["old"])
    return added, removed


def _rust_lines(text: str) -> list[str]:
    """Split like Rust's `str::lines()`: on "\\n" only, one trailing "\\r" dropped, so previews
    never break on form feeds or Unicode separators the user's editor does not."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]

"""Edit review segments and diff previews (reference notes, sections 9.3 and 9.4).

Two different views of one edit, with deliberately different line splitting:

* `diff_segments` feeds the per-hunk review (serve `edit_review.segments`, the
  VS Code reviewer). It splits on "\\n" exactly, so a trailing newline is a final
  empty line and `reassemble` can rebuild either file byte for byte from any
  choice of hunks.
* `preview_diff` is the short human preview shown in approval prompts and after
  an edit. It splits like Rust's `str::lines()` and only trims the common prefix
  and suffix, because a person skims it; it never has to be re-applied.

The diff itself is Myers' greedy O(ND) algorithm over interned lines. Exact
reductions keep it fast on big files without changing the edit distance: the
common prefix and suffix are trimmed first, lines that occur on only one side
(which can never be matched) are set aside before the search, and an exact LCS
length (Hunt–Szymanski) decides up front whether the distance exceeds the cap,
so neither a 10,000-line file with a handful of edits nor a total rewrite pays
Myers' quadratic worst case.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from typing import Any

DEFAULT_MAX_D = 2000
"""Edit-distance cap: past it the review is one whole-file hunk (reference 9.3)."""

Segment = dict[str, Any]
"""Wire form: `{"same": True, "lines": [...]}` or `{"same": False, "old": [...], "new": [...]}`."""


# ------------------------------------------------------------ review segments


def diff_segments(old: str, new: str, max_d: int = DEFAULT_MAX_D) -> list[Segment]:
    """Split an edit into alternating unchanged and changed segments.

    Args:
        old: The file before the edit.
        new: The file after the edit.
        max_d: Edit-distance cap; a bigger diff becomes one whole-file change, so a
            total rewrite neither costs quadratic time nor shows hundreds of hunks.

    Returns:
        Segments in file order. Same and change segments alternate, none is empty,
        and a deletion next to an insertion shares one change segment.
    """
    if old == new:
        return [{"same": True, "lines": old.split("\n")}]
    if not old:
        return [{"same": False, "old": [], "new": new.split("\n")}]
    if not new:
        return [{"same": False, "old": old.split("\n"), "new": []}]
    a, b = old.split("\n"), new.split("\n")
    matches = _match_lines(a, b, min(len(a) + len(b), max_d))
    if matches is None:
        return [{"same": False, "old": a, "new": b}]
    return _group(a, b, matches)


def reassemble(segments: Sequence[Segment], accept: Sequence[bool]) -> str:
    """Rebuild the file from the hunks the user kept.

    `accept[i]` chooses the new side of the i-th change segment; a missing entry
    counts as rejected, so a short mask can never invent content.
    """
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


def _match_lines(a: list[str], b: list[str], cap: int) -> list[tuple[int, int]] | None:
    """Matched (old index, new index) pairs of a shortest edit script, or None past `cap`."""
    n, m = len(a), len(b)
    head = 0
    while head < n and head < m and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and a[n - 1 - tail] == b[m - 1 - tail]:
        tail += 1
    mid_a, mid_b = a[head : n - tail], b[head : m - tail]

    # Lines present on one side only can never match: drop them before the search
    # (GNU diff does the same), remembering where the survivors came from.
    ids: dict[str, int] = {}
    codes_a = [ids.setdefault(line, len(ids)) for line in mid_a]
    codes_b = [ids.setdefault(line, len(ids)) for line in mid_b]
    counts_a, counts_b = Counter(codes_a), Counter(codes_b)
    common = sum(min(count, counts_b[code]) for code, count in counts_a.items())
    if len(mid_a) + len(mid_b) - 2 * common > cap:  # a lower bound on the distance
        return None
    keep_a = [i for i, code in enumerate(codes_a) if code in counts_b]
    keep_b = [j for j, code in enumerate(codes_b) if code in counts_a]
    dropped = len(mid_a) - len(keep_a) + len(mid_b) - len(keep_b)
    lcs = _lcs_length([codes_a[i] for i in keep_a], [codes_b[j] for j in keep_b])
    if lcs is not None and len(mid_a) + len(mid_b) - 2 * lcs > cap:
        return None  # the exact distance is over the cap: skip the quadratic search
    inner = _myers([codes_a[i] for i in keep_a], [codes_b[j] for j in keep_b], cap - dropped)
    if inner is None:
        return None
    pairs = [(k, k) for k in range(head)]
    pairs += [(head + keep_a[x], head + keep_b[y]) for x, y in inner]
    pairs += [(n - tail + k, m - tail + k) for k in range(tail)]
    return pairs


LCS_MAX_PAIRS = 200_000
"""Above this many matching line pairs the exact-LCS precheck would cost more than it saves."""


def _lcs_length(a: list[int], b: list[int]) -> int | None:
    """Exact LCS length (Hunt–Szymanski: longest increasing run of match positions).

    O(r log n) for r matching pairs, so near-unique lines (most source files) cost
    milliseconds even when the edit distance is in the thousands, where Myers is
    quadratic in D. None when repeated lines make r too large to be worth it.
    """
    positions: dict[int, list[int]] = {}
    for j, code in enumerate(b):
        positions.setdefault(code, []).append(j)
    if sum(len(positions.get(code, ())) for code in a) > LCS_MAX_PAIRS:
        return None
    tails: list[int] = []  # tails[k]: smallest end position of a common run of length k+1
    for code in a:
        for j in reversed(positions.get(code, ())):
            k = bisect_left(tails, j)
            if k == len(tails):
                tails.append(j)
            else:
                tails[k] = j
    return len(tails)


def _myers(a: list[int], b: list[int], limit: int) -> list[tuple[int, int]] | None:
    """Myers' forward greedy search; matched pairs in order, or None if D > limit.

    `trace[d]` keeps only the diagonals -d..d reached after step d, so memory is
    O(D^2) rather than O((N+M)·D).
    """
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
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            v[offset + k] = x
            if x >= n and y >= m:
                return _backtrack(trace, n, m)
        trace.append(v[offset - d : offset + d + 1])
    return None


def _backtrack(trace: list[list[int]], n: int, m: int) -> list[tuple[int, int]]:
    """Walk the snapshots back from (n, m), collecting the snakes' matched pairs."""
    pairs: list[tuple[int, int]] = []
    x, y = n, m
    for d in range(len(trace), 0, -1):
        prev = trace[d - 1]  # diagonals -(d-1)..d-1 at index k + d - 1
        k = x - y
        down = k == -d or (k != d and prev[k - 1 + d - 1] < prev[k + 1 + d - 1])
        prev_k = k + 1 if down else k - 1
        prev_x = prev[prev_k + d - 1]
        start = prev_x if down else prev_x + 1
        pairs.extend((x - t - 1, y - t - 1) for t in range(x - start))
        x, y = prev_x, prev_x - prev_k
    pairs.extend((t, t) for t in range(x - 1, -1, -1))
    pairs.reverse()
    return pairs


def _group(a: list[str], b: list[str], pairs: list[tuple[int, int]]) -> list[Segment]:
    """Turn matched pairs into alternating same/change segments."""
    segments: list[Segment] = []
    i = j = 0
    for x, y in [*pairs, (len(a), len(b))]:
        if x > i or y > j:
            segments.append({"same": False, "old": a[i:x], "new": b[j:y]})
        if x < len(a) or y < len(b):
            if segments and segments[-1]["same"]:
                segments[-1]["lines"].append(a[x])
            else:
                segments.append({"same": True, "lines": [a[x]]})
        i, j = x + 1, y + 1
    return segments


# ---------------------------------------------------------------- previews


def preview_diff(old: str, new: str, max_lines: int) -> list[str]:
    """A compact `-`/`+` preview of an edit for prompts and the `edit_diff` event.

    Only the common prefix and suffix lines are trimmed; everything between is
    shown as removed then added. `"@@ line K @@"` (K 1-based) leads when anything
    was trimmed, and past `max_lines` the tail is replaced by one
    `"… [N more diff lines]"` line.
    """
    a, b = _rust_lines(old), _rust_lines(new)
    if a == b:
        return []
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while (
        tail < len(a) - head
        and tail < len(b) - head
        and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]
    ):
        tail += 1
    out = [f"@@ line {head + 1} @@"] if head or tail else []
    out += ["-" + line for line in a[head : len(a) - tail]]
    out += ["+" + line for line in b[head : len(b) - tail]]
    if len(out) > max_lines:
        more = len(out) - max(max_lines, 0)
        out = [*out[: max(max_lines, 0)], f"… [{more} more diff lines]"]
    return out


def count_changes(diff_lines: Sequence[str]) -> tuple[int, int]:
    """(added, removed) for a preview; the `@@` and `…` lines are not counted."""
    added = sum(1 for line in diff_lines if line.startswith("+"))
    removed = sum(1 for line in diff_lines if line.startswith("-"))
    return added, removed


def changed_lines(old: str, new: str) -> tuple[int, int]:
    """(added, removed) lines as `git diff --stat` counts them: over the real line diff.

    The preview trims only the common ends, so two one-line changes twenty lines
    apart would count as twenty removed and twenty added; the review segments
    match every unchanged line in between.
    """
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
    """Split like Rust's `str::lines()`: on "\\n" only, one trailing "\\r" dropped.

    Python's `splitlines` would also break on form feeds and Unicode separators,
    which would make previews disagree with the file the user sees.
    """
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]

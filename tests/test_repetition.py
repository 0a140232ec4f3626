"""`models/repetition.py`: the runaway check gives the answers the plain scan gave.

The check runs every 64 characters of every streamed reply, so it is written to
look only at the periods where the last characters recur. `_reference` is the
plain scan over every candidate period it replaced: for any text both must
agree, including texts built to sit right at the thresholds.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rift.models.repetition import (
    MAX_PERIOD,
    MIN_SPAN,
    MIN_TIMES,
    cut_repetition,
    repeating_period,
)


def _reference(text: str) -> int:
    """Every period from 1 to MAX_PERIOD, smallest first (the original scan)."""
    for period in range(1, MAX_PERIOD + 1):
        span = max(MIN_SPAN, period * MIN_TIMES)
        if span > len(text):
            break
        tail = text[-span:]
        if tail[period:] == tail[:-period]:
            return period
    return 0


def _runaway(unit: str, chars: int, lead: str = "") -> str:
    """`lead`, then `unit` repeated until the repeated part is `chars` long."""
    return lead + (unit * (chars // len(unit) + 1))[:chars]


def test_runaways_are_found_at_their_smallest_period() -> None:
    assert repeating_period("x" * MIN_SPAN) == 1
    assert repeating_period(_runaway("    return a + b\n", 2000, "def f():\n")) == 17
    assert repeating_period(_runaway("ab", 4000)) == 2
    assert repeating_period(_runaway("abab", 4000)) == 2  # not 4


def test_text_just_short_of_the_thresholds_is_not_a_runaway() -> None:
    assert repeating_period("x" * (MIN_SPAN - 1)) == 0
    unit = "".join(f"{i:03d}" for i in range(100))  # 300 characters, no shorter period
    assert repeating_period(_runaway(unit, 300 * MIN_TIMES)) == 300
    assert repeating_period(_runaway(unit, 300 * MIN_TIMES - 1, "#")) == 0
    broken = _runaway("x", 1000) + "y" + _runaway("x", MIN_SPAN - 1)
    assert repeating_period(broken) == 0


def test_prose_and_numbered_words_are_not_runaways() -> None:
    words = "".join(f"w{i} " for i in range(5000))
    assert repeating_period(words) == 0
    rng = random.Random(5)
    prose = " ".join(rng.choice(["the", "model", "edits", "a", "file"]) for _ in range(2000))
    assert repeating_period(prose) == _reference(prose)


_ALPHABET = st.sampled_from("ab\n ")


@settings(max_examples=300, deadline=None)
@given(
    lead=st.text(_ALPHABET, max_size=300),
    unit=st.text(_ALPHABET, min_size=1, max_size=MAX_PERIOD + 20),
    copies=st.integers(0, 12),
    cut=st.integers(0, 400),
    noise=st.text(_ALPHABET, max_size=3),
)
def test_agrees_with_the_plain_scan(
    lead: str, unit: str, copies: int, cut: int, noise: str
) -> None:
    body = (unit * copies)[: max(0, len(unit) * copies - cut)]
    for text in (lead + body, lead + body + noise, body + noise + body):
        assert repeating_period(text) == _reference(text), (len(text), unit)


@settings(max_examples=200, deadline=None)
@given(st.text(_ALPHABET, min_size=MIN_SPAN, max_size=3000))
def test_agrees_on_short_alphabets_where_every_suffix_recurs(text: str) -> None:
    assert repeating_period(text) == _reference(text)


def test_cut_keeps_one_copy() -> None:
    text = "head\n" + "loop\n" * 200
    assert cut_repetition(text, repeating_period(text)) == "head\nloop\n"


def test_limits_follow_the_model() -> None:
    from rift.models.repetition import TIGHT, WIDE, limits_for

    assert limits_for("anything", small=True) is TIGHT
    assert limits_for("qwen2.5-coder:1.5b", small=False) is TIGHT
    assert limits_for("ollama/llama3.2:3b-instruct", small=False) is TIGHT
    assert limits_for("Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF", small=False) is TIGHT
    assert limits_for("qwen2.5-coder:32b", small=False) is WIDE
    assert limits_for("gpt-oss-120b", small=False) is WIDE
    assert limits_for("fake-model", small=False) is WIDE  # unknown size: assume a capable model


def test_wide_limits_let_an_honest_repeated_block_through() -> None:
    from rift.models.repetition import WIDE

    block = "".join(f"row {i},a,b,c\n" for i in range(7))
    assert repeating_period(block * 6) == len(block)  # tight: cut
    assert repeating_period(block * 6, WIDE) == 0
    assert repeating_period(block * 400, WIDE) == len(block)  # a real loop still ends

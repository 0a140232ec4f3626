"""Spotting a generation that repeats itself, for every provider.

A small model stuck in a loop emits the same line, or the same few lines,
until its token cap: seen on the embedded model, 2,048 tokens of one line
(9 minutes at 4 tokens a second), then rejected as broken JSON. The end of
the text is a runaway when it is one chunk of at most `MAX_PERIOD`
characters repeated `MIN_TIMES` times over at least `MIN_SPAN` characters, a
pattern that real code does not produce at that length. Checking costs one
C-level string comparison per candidate period, so callers can check as the
text grows (every few tokens, not every character).
"""

from __future__ import annotations

MIN_SPAN = 400
MIN_TIMES = 6
MAX_PERIOD = 400
CHECK_EVERY = 64
"""Characters of new text between two checks (callers that stream)."""


def repeating_period(text: str) -> int:
    """The period of the repetition that fills the end of `text`, or 0 when there is none."""
    for period in range(1, MAX_PERIOD + 1):
        span = max(MIN_SPAN, period * MIN_TIMES)
        if span > len(text):
            break
        tail = text[-span:]
        if tail[period:] == tail[:-period]:
            return period
    return 0


def cut_repetition(text: str, period: int) -> str:
    """`text` with its repeated tail reduced to one copy (for showing, not for parsing)."""
    if period <= 0:
        return text
    end = len(text)
    while end >= 2 * period and text[end - 2 * period : end - period] == text[end - period : end]:
        end -= period
    return text[:end]

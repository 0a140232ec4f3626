"""Spotting a generation that repeats itself, for every provider.

A small model stuck in a loop emits the same few lines until its token cap. The end of
the text is a runaway when it is one chunk of at most `MAX_PERIOD` characters repeated
`MIN_TIMES` times over at least `MIN_SPAN` characters. The check runs as the text grows,
so it must be cheap: a period can only qualify where the last `_PROBE` characters occur
again that far back, so one `rfind` names the candidates.
"""

from __future__ import annotations

from msgspec import Struct

from rift.models import sizes

MIN_SPAN = 400
MIN_TIMES = 6
MAX_PERIOD = 400
CHECK_EVERY = 64
"""Characters of new text between two checks (callers that stream)."""


_PROBE = 32
"""Characters at the end whose earlier copies name the candidate periods.

Any qualifying period p has a span of at least p + _PROBE (span >= 6p and
span >= MIN_SPAN), so the probe's copy p back lies inside the repeated part."""


class Limits(Struct, frozen=True):
    """How much repetition makes a runaway, for one kind of model: a small model loops
    for real and slowly, while a large model's honest answer (a CSV of identical rows)
    can repeat as much, so for those only a far longer run counts."""

    min_times: int = MIN_TIMES
    min_span: int = MIN_SPAN

    @property
    def tail(self) -> int:
        """Characters a caller must keep to check the end of a text (for both limits)."""
        return max(self.min_span, MAX_PERIOD * self.min_times)


TIGHT = Limits()
"""Small and embedded models: cut early."""
WIDE = Limits(min_times=24, min_span=4000)
"""Every other model: only a long run of copies counts."""


def limits_for(model: str, *, small: bool) -> Limits:
    """The limits for `model`: tight for a small provider or a name like `qwen2.5-coder:1.5b`."""
    return TIGHT if small or sizes.named_small(model) else WIDE


def repeating_period(text: str, limits: Limits = TIGHT) -> int:
    """The smallest period of a repetition that fills the end of `text`, or 0 for none."""
    min_span, min_times = limits.min_span, limits.min_times
    end = len(text)
    if end < min_span:
        return 0
    probe = text[-_PROBE:]
    window = max(0, end - _PROBE - MAX_PERIOD)
    # rfind's `end` bound keeps the match ending before the probe's own last character
    at = text.rfind(probe, window, end - 1)
    while at >= 0:  # nearest copy first, so periods come smallest first
        period = end - _PROBE - at
        span = max(min_span, period * min_times)
        if span > end:
            break  # spans only grow with the period
        tail = text[-span:]
        if tail[period:] == tail[:-period]:
            return period
        at = text.rfind(probe, window, at + _PROBE - 1)
    return 0


def cut_repetition(text: str, period: int) -> str:
    """`text` with its repeated tail reduced to one copy (for showing, not for parsing)."""
    if period <= 0:
        return text
    end = len(text)
    while end >= 2 * period and text[end - 2 * period : end - period] == text[end - period : end]:
        end -= period
    return text[:end]

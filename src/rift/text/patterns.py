"""Regular expressions compiled on first use instead of at import.

Why: `re` compiles in Python, and a pattern of a few alternatives costs a
fraction of a millisecond to parse and assemble. The modules on the `-p` and
`--serve` paths held ~25 such patterns, most of them needed only by one kind
of model or one kind of turn, yet every start paid for all of them
(bench/run.py, "Import profile"). `lazy` keeps the pattern beside the code
that uses it, reads as a constant, and compiles once, when first called.

    _FENCE = lazy(r"^```(.*?)```$", re.DOTALL)
    ...
    match = _FENCE().match(text)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable


def lazy(source: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A function returning `re.compile(source, flags)`, compiled on its first call."""

    @functools.cache
    def compiled() -> re.Pattern[str]:
        return re.compile(source, flags)

    return compiled


__all__ = ["lazy"]

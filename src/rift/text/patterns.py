"""Regular expressions compiled on first use instead of at import.

Why: `re` compiles in Python, and most patterns are needed only by one kind of
model or turn, yet every start paid for all of them. `lazy` keeps the pattern
beside the code that uses it, reads as a constant, and compiles once.

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

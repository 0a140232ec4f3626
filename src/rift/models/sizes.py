"""How big a model is, read off its name (`qwen2.5-coder:1.5b`, `Llama-3.2-3B-Instruct`).

Servers rarely say, but nearly every local model's name does, and a model of a few
billion parameters gets the small-model format wherever it runs.
"""

from __future__ import annotations

import re

from rift.text.patterns import lazy

_PARAMS = lazy(r"(?<![\d.])(\d+(?:\.\d+)?)\s*b(?![a-z])", re.IGNORECASE)
SMALL_PARAMS_B = 4.0
"""Models named with at most this many billion parameters count as small."""


def named_small(model: str) -> bool:
    """`model`'s name (its last path part, so a GGUF path counts too) says it has at most
    SMALL_PARAMS_B billion parameters."""
    sizes = [float(m) for m in _PARAMS().findall(model.rsplit("/", 1)[-1])]
    return bool(sizes) and max(sizes) <= SMALL_PARAMS_B

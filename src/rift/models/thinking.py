"""Reasoning control: the `effort` setting and `/think`, turned into one request value.

A request's `think` (models/base.py `Reasoning`) is settled once per model binding
and changed by `/think`. A model without "thinking" always gets False (asking a
non-thinking model to think is a 400 on Ollama); each wire format then spells the
value its own way.
"""

from __future__ import annotations

from rift.config.load import EFFORT_LEVELS
from rift.models.base import Reasoning

THINK_WORDS = ("on", "off", "auto")
_OLLAMA_LEVELS = {"minimal": "low", "low": "low", "medium": "medium"}
"""Ollama's graded `think` knows low/medium/high; anything above medium is high."""
_ANTHROPIC_BUDGETS = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 16384,
    "xhigh": 32000,
    "max": 64000,
}
ANTHROPIC_DEFAULT_BUDGET = _ANTHROPIC_BUDGETS["medium"]


def settle(effort: str | None, can_think: bool) -> Reasoning:
    """The binding's starting value: False for a model that cannot think, else the
    configured effort, else None (the server decides)."""
    return effort if can_think else False


def parse_think(arg: str, can_think: bool) -> Reasoning:
    """`/think on|off|auto|<level>` → the new value.

    Raises:
        ValueError: an unknown word, or thinking asked of a model without it.
    """
    word = arg.strip().lower()
    if word not in THINK_WORDS and word not in EFFORT_LEVELS:
        raise ValueError(
            f"/think takes {'|'.join(THINK_WORDS)} or an effort level"
            f" ({', '.join(EFFORT_LEVELS)}), not '{arg.strip()}'"
        )
    if word == "off":
        return False
    if not can_think:
        raise ValueError("this model does not report the 'thinking' capability")
    if word == "auto":
        return None
    return True if word == "on" else word


def describe(value: Reasoning) -> str:
    """How `/think` reports the current value."""
    if isinstance(value, str):
        return f"thinking: on, effort {value}"
    return "thinking: " + {None: "auto (the server's default)", False: "off", True: "on"}[value]


def ollama_think(value: Reasoning) -> bool | str | None:
    """Ollama's `think`: a bool, or its graded string for an effort level."""
    if isinstance(value, str):
        return _OLLAMA_LEVELS.get(value, "high")
    return value


def anthropic_budget(value: Reasoning) -> int | None:
    """Anthropic's `budget_tokens` for extended thinking; None means thinking off."""
    if isinstance(value, str):
        return _ANTHROPIC_BUDGETS.get(value, ANTHROPIC_DEFAULT_BUDGET)
    return ANTHROPIC_DEFAULT_BUDGET if value is True else None

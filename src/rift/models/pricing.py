"""What a turn cost, estimated from the config's pricing table (display only).

`pricing.<substring>` rates (USD per million tokens) match the wire name by substring,
the longest key winning. Local models cost nothing: they run on the user's hardware.
Prompt tokens are the turn's billed ones (each call of a tool loop re-sends the prompt).
"""

from __future__ import annotations

from rift.config.load import Config, Price
from rift.errors import ModelError
from rift.models.registry import resolve


def price_of(config: Config, wire_model: str) -> Price | None:
    """The rate for a model name, or None when no key matches it."""
    matches = [key for key in config.pricing if key and key in wire_model]
    return config.pricing[max(matches, key=len)] if matches else None


def estimated_cost_usd(config: Config, model: str, prompt_tokens: int, output_tokens: int) -> float:
    """USD for `model` (an addressable name) reading and writing these many tokens;
    0 for local or unpriced models."""
    try:
        route = resolve(model, config)
    except ModelError:
        return 0.0
    price = None if route.local else price_of(config, route.wire_model)
    if price is None:
        return 0.0
    cost = prompt_tokens * price.input + output_tokens * price.output
    return round(cost / 1_000_000, 6)

"""Checkout."""

from shop import pricing


def receipt(cart):
    total = pricing.compute_total(cart.items)
    return f"TOTAL {total:.2f}"

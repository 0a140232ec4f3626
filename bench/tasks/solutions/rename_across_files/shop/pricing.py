"""Prices and totals."""

TAX_RATE = 0.2


def compute_total(items):
    """Total price of (price, quantity) pairs, tax included, rounded to cents."""
    net = sum(price * qty for price, qty in items)
    return round(net * (1 + TAX_RATE), 2)

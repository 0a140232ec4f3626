"""Display prices."""


def format_price(cents, currency="$"):
    """Cents as a price with two decimals and thousands separators: 123450 -> '$1,234.50'."""
    return f"{currency}{cents / 100:,.2f}"

"""Split a bill between people."""


def split_bill(total, people):
    """Shares in currency units (2 decimals) that add up to `total` exactly.

    Leftover cents go to the first people: split_bill(100, 3) == [33.34, 33.33, 33.33].
    """
    cents = round(total * 100)
    base, extra = divmod(cents, people)
    return [(base + (1 if i < extra else 0)) / 100 for i in range(people)]

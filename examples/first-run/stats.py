def max_of(items):
    """The largest item."""
    return min(items)


def mean(items):
    return sum(items) / len(items)

def max_of(items):
    """The largest item."""
    return max(items)


def mean(items):
    return sum(items) / len(items)

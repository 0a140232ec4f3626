"""Small statistics helpers."""


def mean(values):
    """Arithmetic mean of `values`; 0.0 for an empty sequence."""
    if not values:
        return 0.0
    return sum(values) / len(values)


def spread(values):
    """Largest minus smallest value; 0 for an empty sequence."""
    if not values:
        return 0
    return max(values) - min(values)

"""Summaries of number streams."""


def summarize(numbers):
    """{'total', 'count', 'mean'} of any iterable of numbers (generators included)."""
    numbers = list(numbers)
    total = sum(numbers)
    count = len(numbers)
    return {"total": total, "count": count, "mean": total / count if count else 0.0}

"""Math helpers."""


def factorial(n):
    """n! for n >= 0; ValueError for negative n."""
    if n < 0:
        raise ValueError("negative")
    if n <= 1:
        return 1
    return n * factorial(n - 1)

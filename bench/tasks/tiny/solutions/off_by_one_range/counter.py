def count_up(n):
    """The numbers 1, 2, ..., n."""
    return list(range(1, n + 1))


def count_down(n):
    """The numbers n, n-1, ..., 1."""
    return list(range(n, 0, -1))

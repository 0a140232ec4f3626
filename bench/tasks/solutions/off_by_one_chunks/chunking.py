"""Split sequences into fixed-size chunks."""


def chunk(seq, size):
    """Return consecutive slices of `seq`, each `size` long (the last may be shorter)."""
    if size <= 0:
        raise ValueError("size must be positive")
    return [seq[i : i + size] for i in range(0, len(seq), size)]

"""Word frequencies."""


def word_counts(text):
    """How often each lowercase word occurs in `text`."""
    counts = {}
    for word in text.lower().split():
        counts[word] = counts.get(word, 0) + 1
    return counts

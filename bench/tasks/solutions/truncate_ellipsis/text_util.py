"""Text helpers."""


def truncate(text, width):
    """`text` cut to at most `width` characters; a cut text ends with '...' (within `width`)."""
    if len(text) <= width:
        return text
    return text[: max(width - 3, 0)] + "..."

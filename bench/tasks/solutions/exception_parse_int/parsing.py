"""Lenient parsing of user input."""


def parse_int(text, default=None):
    """The integer in `text` (surrounding whitespace allowed), or `default` when there is none."""
    try:
        return int(text.strip())
    except (ValueError, AttributeError):
        return default


def parse_bool(text):
    return text.strip().lower() in ("1", "true", "yes", "on")

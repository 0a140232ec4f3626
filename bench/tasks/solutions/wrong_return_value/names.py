"""Name cleanup."""


def normalize(name):
    """Trim, collapse inner whitespace and title-case a person's name."""
    cleaned = " ".join(name.split()).title()
    return cleaned


def initials(name):
    """'ada lovelace' -> 'A.L.'"""
    return "".join(part[0] + "." for part in normalize(name).split())

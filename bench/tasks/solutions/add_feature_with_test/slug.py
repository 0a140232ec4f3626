"""URL slugs."""

import re


def slugify(text, max_length=None):
    """Lowercase `text`, keep letters and digits, join the words with hyphens."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    slug = "-".join(words)
    if max_length is not None:
        slug = slug[:max_length].rstrip("-")
    return slug

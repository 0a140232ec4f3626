"""Tag helpers."""


def add_tag(tag, tags=None):
    """Return `tags` with `tag` appended (a new list when none is given)."""
    if tags is None:
        tags = []
    tags.append(tag.strip().lower())
    return tags

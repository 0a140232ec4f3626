"""Product ratings."""


def average_rating(ratings):
    """Mean rating rounded to one decimal; None when there are no ratings."""
    if not ratings:
        return None
    return round(sum(ratings) / len(ratings), 1)

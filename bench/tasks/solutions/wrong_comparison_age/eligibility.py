"""Who may sign up."""

MIN_AGE = 18


def can_register(age, country="US"):
    """True for people aged MIN_AGE or older (16 or older in "AT")."""
    limit = 16 if country == "AT" else MIN_AGE
    return age >= limit

def is_adult(age):
    return age >= 18


def is_senior(age):
    return age >= 65

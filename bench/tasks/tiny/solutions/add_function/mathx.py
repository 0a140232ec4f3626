def double(x):
    return 2 * x


def half(x):
    return x / 2


def square(x):
    return x * x

def total(prices):
    result = sum(prices)
    return result


def count(prices):
    return len(prices)

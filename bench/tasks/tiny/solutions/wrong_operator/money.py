def apply_discount(price, percent):
    """The price after taking `percent` percent off."""
    return price - price * percent / 100


def add_tax(price, rate):
    return price * (1 + rate)

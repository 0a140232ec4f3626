"""key=value lists."""


def parse_kv(text):
    """'a=1; b = 2;c=x=y' -> {'a': '1', 'b': '2', 'c': 'x=y'}; empty items are skipped."""
    result = {}
    for item in text.split(";"):
        if not item.strip():
            continue
        key, value = item.split("=", 1)
        result[key.strip()] = value.strip()
    return result

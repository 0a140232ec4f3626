def rect_area(width, height):
    return width * height


def perimeter(width, height):
    return 2 * (width + height)


def describe(width, height):
    return f"{width}x{height}: area {rect_area(width, height)}"

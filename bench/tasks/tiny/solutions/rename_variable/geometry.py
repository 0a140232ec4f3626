import math


def circle_area(radius):
    return math.pi * radius * radius


def circle_circumference(radius):
    return 2 * math.pi * radius

"""Run with: python3 test_slug.py"""

from slug import slugify


def test_basic():
    assert slugify("Hello, World!") == "hello-world"


def test_digits():
    assert slugify("Top 10 Tips") == "top-10-tips"


def test_max_length():
    assert slugify("Hello World Foo", max_length=6) == "hello"


if __name__ == "__main__":
    for name, fn in list(globals().items()):
        if name.startswith("test_"):
            fn()
    print("ok")

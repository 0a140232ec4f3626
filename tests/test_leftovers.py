"""What a Python edit left undone (tools/leftovers.py), pure."""

from __future__ import annotations

from rift.tools.leftovers import (
    dropped_definitions,
    leftover_note,
    new_undefined,
    renamed,
    replace_identifier,
    undefined_names,
)

BEFORE = "def area(w, h):\n    return w * h\n\n\ndef describe(w, h):\n    return area(w, h)\n"
HALF = BEFORE.replace("def area", "def rect_area")


def test_a_name_defined_before_and_still_used_is_reported_with_its_line() -> None:
    assert new_undefined(BEFORE, HALF) == [("area", 6)]
    assert new_undefined(BEFORE, HALF.replace("return area", "return rect_area")) == []


def test_correct_code_is_never_flagged() -> None:
    code = (
        "import os.path as p\nfrom x import y\n\n\nclass C:\n    def m(self, *a, **k):\n"
        "        global G\n        G = [i for i in a]\n        try:\n            pass\n"
        "        except ValueError as e:\n            print(e, p, y, __name__, len(k))\n"
        "        match a:\n            case [first, *rest]:\n                return first, rest\n"
    )
    assert undefined_names(code) == {}
    assert undefined_names("from x import *\nprint(q)\n") is None  # not judged
    assert undefined_names("def (:\n") is None


def test_names_undefined_before_the_edit_are_not_blamed_on_it() -> None:
    assert new_undefined("print(missing)\n", "print(missing)\nx = 1\n") == []


def test_a_rename_pair_is_seen_and_the_note_says_how_to_finish_it() -> None:
    assert renamed("def area(w, h):", "def rect_area(w, h):") == ("area", "rect_area")
    assert renamed("return a - b", "return a + b") is None
    note = leftover_note("shapes.py", BEFORE, HALF, "def area(w, h):", "def rect_area(w, h):")
    assert "line 6 of shapes.py still uses `area` (`return area(w, h)`)" in note
    assert "old_string `area`, new_string `rect_area` and replace_all true" in note
    assert leftover_note("shapes.py", BEFORE, BEFORE + "\n") == ""


def test_replacing_an_identifier_leaves_longer_names_and_string_prefixes_alone() -> None:
    text = 'f = 1\nprint(f, ff, f"{f}", obj.f)\n'
    assert replace_identifier(text, "f", "g") == ('g = 1\nprint(g, ff, f"{g}", obj.g)\n', 4)


def test_a_rewrite_that_keeps_only_the_new_function_drops_the_others() -> None:
    mathx = "def cube(x):\n    return x ** 3\n\n\nLIMIT = 3\n"
    only_new = "def square(x):\n    return x * x\n"
    task = "Add a function square(x) that returns x * x to mathx.py."
    assert dropped_definitions(mathx, only_new, task) == ["cube", "LIMIT"]
    assert dropped_definitions(mathx, mathx + "\n\n" + only_new, task) == []
    renamed_file = mathx.replace("cube", "third_power")
    assert dropped_definitions(mathx, renamed_file, "Rename cube to third_power") == []


def test_a_python_rename_leaves_comments_and_string_text_alone() -> None:
    """replace_all of `area` in shapes.py also renamed the word in "2x3: area 6" (the tiny
    tier's rename_function check): in Python only the code's names change."""
    from rift.tools.leftovers import rename_in_python

    text = (
        "def area(w, h):\n    return w * h  # the area\n\n\n"
        'def describe(w, h):\n    return f"{w}x{h}: area {area(w, h)} {{area}}" + "area"\n'
        "size = shapes.area\n"
    )
    assert rename_in_python(text, "area", "rect_area") == (
        "def rect_area(w, h):\n    return w * h  # the area\n\n\n"
        'def describe(w, h):\n    return f"{w}x{h}: area {rect_area(w, h)} {{area}}" + "area"\n'
        "size = shapes.rect_area\n",
        3,
    )
    assert rename_in_python("x = (", "x", "y") is None  # does not tokenize: the caller decides

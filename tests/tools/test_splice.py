"""A small model's whole-file rewrite that holds only the definitions it changed
(tools/splice.py): the change lands and the rest of the file stays as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from tooldoubles import call

from rift.tools.base import ToolContext
from rift.tools.services import EditRules
from rift.tools.splice import splice_definitions
from rift.tools.write import TOOL as WRITE

STATS = (
    'def max_of(items):\n    """The largest item."""\n    return min(items)\n\n\n'
    "def mean(items):\n    return sum(items) / len(items)\n"
)
FIXED = 'def max_of(items):\n    """The largest item."""\n    return max(items)\n'


@pytest.fixture
def small(ctx: ToolContext) -> ToolContext:
    ctx.services.edit_rules = EditRules(strict=True)
    return ctx


def test_a_rewrite_of_one_function_keeps_the_others(proj: Path, small: ToolContext) -> None:
    """The first-run example: the 1.5B model's rewrite held only `max_of`, fixed. It was
    refused (it leaves out `mean`) and the fix was lost; now it is written, `mean` kept."""
    (proj / "stats.py").write_text(STATS)
    out = call(WRITE, small, path="stats.py", content=FIXED)
    assert out.ok, out.text
    assert (proj / "stats.py").read_text() == STATS.replace("min(items)", "max(items)")
    assert "the rest were kept" in out.text


def test_a_rewrite_that_is_more_than_definitions_is_still_refused(
    proj: Path, small: ToolContext
) -> None:
    (proj / "stats.py").write_text(STATS)
    out = call(WRITE, small, path="stats.py", content=FIXED + "\nprint(max_of([1, 2]))\n")
    assert not out.ok and "leaves out `mean`" in out.text
    assert (proj / "stats.py").read_text() == STATS


def test_a_function_the_task_names_may_still_be_removed(proj: Path, small: ToolContext) -> None:
    """Whatever language the task is in, naming `mean` is what lets a rewrite drop it."""
    (proj / "stats.py").write_text(STATS)
    small.services.task_words = "Entferne mean aus stats.py."
    assert call(WRITE, small, path="stats.py", content=STATS.split("\n\n\n")[0] + "\n").ok
    assert "mean" not in (proj / "stats.py").read_text()


def test_a_new_function_and_import_join_the_file() -> None:
    before = '"""Doc."""\nimport os\n\n\n' + STATS
    after = splice_definitions(before, "import math\n\n\ndef square(x):\n    return x * x\n")
    square = "\n\ndef square(x):\n    return x * x\n"
    assert after == '"""Doc."""\nimport os\nimport math\n\n\n' + STATS + square


def test_a_decorator_the_reply_leaves_off_is_kept() -> None:
    before = "@cache\ndef f(x):\n    return x\n\n\ndef g():\n    return 1\n"
    assert splice_definitions(before, "def f(x):\n    return x + 1\n") == (
        "@cache\ndef f(x):\n    return x + 1\n\n\ndef g():\n    return 1\n"
    )


@pytest.mark.parametrize("reply", ["x = 1\n", "def f(:\n", "", "if True:\n    pass\n"])
def test_anything_but_definitions_is_not_read_this_way(reply: str) -> None:
    assert splice_definitions(STATS, reply) is None

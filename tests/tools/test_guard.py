"""tools/guard.py through the write and edit tools: what a small model may not do to a file."""

from __future__ import annotations

from pathlib import Path

import pytest
from tooldoubles import RecordingGate, call

from rift.models.repetition import cut_repetition, repeating_period
from rift.tools import guard
from rift.tools.base import ToolContext
from rift.tools.edit import TOOL as EDIT
from rift.tools.services import EditRules
from rift.tools.write import TOOL as WRITE

LONG = "".join(f"def f{n}():\n    return {n}\n\n\n" for n in range(8))


@pytest.fixture
def small(ctx: ToolContext) -> ToolContext:
    ctx.services.edit_rules = EditRules(strict=True)
    return ctx


def test_a_small_model_may_not_rewrite_an_existing_file_whole(
    proj: Path, small: ToolContext, gate: RecordingGate
) -> None:
    (proj / "m.py").write_text(LONG)
    out = call(WRITE, small, path="m.py", content=LONG.replace("return 3", "return 33"))
    assert not out.ok
    assert out.text.startswith("write refused: m.py already exists (32 lines)")
    assert "Use edit instead" in out.text
    assert (proj / "m.py").read_text() == LONG
    assert gate.writes == []  # refused before anyone was asked


def test_a_small_model_may_rewrite_a_tiny_file_and_create_new_ones(
    proj: Path, small: ToolContext
) -> None:
    (proj / "t.py").write_text("X = 1\n")
    assert call(WRITE, small, path="t.py", content="X = 2\n").ok
    assert call(WRITE, small, path="new.py", content=LONG).ok
    assert (proj / "new.py").read_text() == LONG


def test_a_small_models_write_that_changes_nothing_says_so(proj: Path, small: ToolContext) -> None:
    (proj / "m.py").write_text(LONG)
    out = call(WRITE, small, path="m.py", content=LONG.rstrip("\n"))
    assert not out.ok
    assert "nothing would change" in out.text
    tiny = "def double(x):\n    return 2 * x\n\n\ndef half(x):\n    return x / 2\n"
    (proj / "mathx.py").write_text(tiny)  # seen: one blank line dropped, "added square()"
    out = call(WRITE, small, path="mathx.py", content=tiny.replace("\n\n\n", "\n\n"))
    assert not out.ok and "nothing would change" in out.text


def test_other_models_may_rewrite_an_existing_file(proj: Path, ctx: ToolContext) -> None:
    (proj / "m.py").write_text(LONG)
    assert call(WRITE, ctx, path="m.py", content=LONG.replace("return 3", "return 33")).ok


def test_edit_drops_line_numbers_copied_from_read(proj: Path, ctx: ToolContext) -> None:
    (proj / "m.py").write_text("def f():\n    return 1\n")
    out = call(
        EDIT, ctx, path="m.py", old_string="    2\t    return 1", new_string="    2\t    return 2"
    )
    assert out.ok, out.text
    assert (proj / "m.py").read_text() == "def f():\n    return 2\n"


def test_edit_refuses_new_text_with_line_numbers(proj: Path, ctx: ToolContext) -> None:
    (proj / "m.py").write_text("def f():\n    return 1\n")
    with_numbers = "    2\t    return 2\n    3\t"
    out = call(EDIT, ctx, path="m.py", old_string="    return 1", new_string=with_numbers)
    assert not out.ok
    assert "line numbers" in out.text
    assert (proj / "m.py").read_text() == "def f():\n    return 1\n"


def test_only_new_template_tokens_count() -> None:
    assert guard.template_tokens("a <|im_end|> <tool_call>", "<tool_call>") == ["<|im_end|>"]
    assert guard.template_tokens("x = '<|not a token|>'") == []


def test_line_numbers_are_the_read_tools_padded_form_only() -> None:
    assert guard.has_line_numbers("    1\tx = 1\n    2\ty = 2\n")
    assert not guard.has_line_numbers("1\tAlice\n2\tBob\n")  # a TSV file is not read output
    assert guard.strip_line_numbers("   10\tx\n   11\t\n") == "x\n\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("```python\nx = 1\n```", "x = 1\n"),
        ("```\nx = 1\n```\n", "x = 1\n"),
        ("x = 1\n", "x = 1\n"),
        ("```\na\n```\nmiddle\n```\nb\n```", "```\na\n```\nmiddle\n```\nb\n```"),
    ],
)
def test_whole_file_fences(text: str, expected: str) -> None:
    assert guard.strip_whole_fence(text, Path("a.py")) == expected


def test_yaml_is_checked_only_when_a_parser_is_installed() -> None:
    import importlib.util

    error = guard.syntax_error(Path("a.yaml"), "a: [1, 2\n")
    if importlib.util.find_spec("yaml") is None:
        assert error is None
    else:
        assert error


def test_python_warnings_are_not_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert guard.syntax_error(Path("a.py"), 'x = "\\d"\n') is None
    assert capsys.readouterr().err == ""


def test_repetition_is_found_at_the_end_only() -> None:
    loop = "same line\n" * 60
    assert repeating_period("start\n" + loop) == len("same line\n")
    assert repeating_period(loop + "and then something new entirely, as real text goes on") == 0
    assert repeating_period("".join(f"line {n}\n" for n in range(200))) == 0
    assert cut_repetition("start\n" + loop, 10) == "start\nsame line\n"


STATS = 'def max_of(items):\n    """The largest item."""\n    return min(items)\n'


def test_a_small_models_edit_may_not_leave_code_unreachable(proj: Path, small: ToolContext) -> None:
    """Seen on the README's own example: a new `return` inserted above the docstring and
    the old return, so the function "worked" with its old body left dead below it."""
    (proj / "stats.py").write_text(STATS)
    out = call(
        EDIT,
        small,
        path="stats.py",
        old_string="def max_of(items):",
        new_string="def max_of(items):\n    return max(items)",
    )
    assert not out.ok
    assert "edit refused: it would leave 2 statements of stats.py unreachable" in out.text
    assert "line 3" in out.text and "replace the old line" in out.text
    assert (proj / "stats.py").read_text() == STATS
    fixed = call(
        EDIT, small, path="stats.py", old_string="return min(items)", new_string="return max(items)"
    )
    assert fixed.ok


def test_a_small_models_write_may_not_leave_code_unreachable(
    proj: Path, small: ToolContext
) -> None:
    (proj / "stats.py").write_text(STATS)
    dead = STATS.replace("    return min", "    return max(items)\n    return min")
    out = call(WRITE, small, path="stats.py", content=dead)
    assert not out.ok and "unreachable" in out.text
    code = "def f():\n    return 1\n    x = 2\n"  # dead code the file already had may stay
    (proj / "old.py").write_text(code)
    assert call(WRITE, small, path="old.py", content=code.replace("2", "3")).ok


def test_other_models_may_return_early(proj: Path, ctx: ToolContext) -> None:
    """ "Make f a no-op: return at the top" is a fair request of a capable model."""
    (proj / "stats.py").write_text(STATS)
    out = call(
        EDIT,
        ctx,
        path="stats.py",
        old_string="def max_of(items):",
        new_string="def max_of(items):\n    return None",
    )
    assert out.ok


CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"


def test_a_small_models_edit_may_not_define_a_function_twice(
    proj: Path, small: ToolContext
) -> None:
    """Seen on the tiny tier: asked for a docstring on add, the model replaced mul with a
    second add; the file still parsed, and mul was gone."""
    (proj / "calc.py").write_text(CALC)
    out = call(
        EDIT,
        small,
        path="calc.py",
        old_string="def mul(a, b):\n    return a * b",
        new_string="def add(a, b):\n    return a + b",
    )
    assert not out.ok
    assert "1 statement of calc.py defined twice" in out.text and "line 5" in out.text
    assert (proj / "calc.py").read_text() == CALC
    setter = "class C:\n    @property\n    def x(self):\n        return 1\n"
    (proj / "c.py").write_text(setter)
    more = setter + "\n    @x.setter\n    def x(self, v):\n        pass\n"
    assert call(WRITE, small, path="c.py", content=more).ok  # decorated: a setter, not damage


def test_a_write_wrapped_in_the_templates_tool_response_tags_is_unwrapped(
    proj: Path, small: ToolContext
) -> None:
    """The embedded model wraps the files it writes in the tags it sees around every tool
    result; the wrapper is taken off, and anything else with markup is still refused."""
    out = call(WRITE, small, path="new.py", content="<tool_response>\nX = 1\n</tool_response>")
    assert out.ok and (proj / "new.py").read_text() == "X = 1\n"
    out = call(WRITE, small, path="half.py", content="<tool_response>Y = 2")
    assert out.ok and (proj / "half.py").read_text() == "Y = 2\n"
    inner = "<tool_response>A = 1\n<tool_call>x</tool_call>\n</tool_response>"
    assert not call(WRITE, small, path="bad.py", content=inner).ok
    assert not (proj / "bad.py").exists()


def test_an_edit_wrapped_in_tool_response_tags_is_unwrapped(proj: Path, small: ToolContext) -> None:
    (proj / "c.py").write_text("X = 1\nY = 2\n")
    out = call(
        EDIT,
        small,
        path="c.py",
        old_string="<tool_response>X = 1</tool_response>",
        new_string="<tool_response>X = 10</tool_response>",
    )
    assert out.ok, out.text
    assert (proj / "c.py").read_text() == "X = 10\nY = 2\n"


def test_a_successful_change_does_not_claim_the_task_is_done(
    proj: Path, small: ToolContext
) -> None:
    """Only the project's checks may say the task is done (core/loop/parts/checks.py): the
    tool's own result no longer tells a small model to give its final answer."""
    (proj / "c.py").write_text("X = 1\n")
    out = call(EDIT, small, path="c.py", old_string="X = 1", new_string="X = 2")
    assert out.ok and out.text == "Edited c.py (1 replacement)"
    assert call(WRITE, small, path="n.py", content="Y = 1\n").text == "Wrote 6 bytes to n.py"


def test_a_bare_template_tag_never_empties_a_file(proj: Path, small: ToolContext) -> None:
    """Seen on the tiny tier: content "<tool_response>" alone, unwrapped to nothing, emptied
    the file. A bare tag is refused, and so is an empty write over a file with lines."""
    (proj / "avg.py").write_text("def average(n):\n    return sum(n) / len(n)\n")
    before = (proj / "avg.py").read_text()
    assert not call(WRITE, small, path="avg.py", content="<tool_response>").ok
    out = call(WRITE, small, path="avg.py", content="\n")
    assert not out.ok and "would erase" in out.text
    assert (proj / "avg.py").read_text() == before


MATHX = "def double(x):\n    return 2 * x\n\n\ndef half(x):\n    return x / 2\n"


def test_an_edit_that_drops_its_anchor_line_is_read_as_an_insertion_above_it(
    proj: Path, small: ToolContext
) -> None:
    """Seen on the tiny tier (add_function): asked to add `square`, the 1.5B model replaced
    the line `def double(x):` with the new function, which would leave double's body dead
    under square. Taken literally it is refused; kept above its anchor it is what was asked."""
    (proj / "mathx.py").write_text(MATHX)
    out = call(
        EDIT, small, path="mathx.py", old_string="def double(x):",
        new_string="def square(x):\n    return x * x",
    )  # fmt: skip
    assert out.ok, out.text
    assert "the new lines went above old_string" in out.text
    assert (proj / "mathx.py").read_text() == "def square(x):\n    return x * x\n\n\n" + MATHX


def test_the_insertion_reading_is_not_used_when_it_would_also_be_refused(
    proj: Path, small: ToolContext
) -> None:
    """Rewriting double's signature and body over its old `def` line: kept above its anchor
    that would define double twice, so the refusal stands and the file stays as it was."""
    (proj / "mathx.py").write_text(MATHX)
    out = call(
        EDIT, small, path="mathx.py", old_string="def double(x):",
        new_string="def double(x, factor=2):\n    return factor * x",
    )  # fmt: skip
    assert not out.ok and "unreachable" in out.text
    assert (proj / "mathx.py").read_text() == MATHX

"""A pathological file (a 200,000-term expression, thousands of nested modules or blocks)
gives read, outline and repo_map a result, never a crashed turn (issue 30)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tooldoubles import call

from rift.tools import _outline
from rift.tools.base import ToolContext
from rift.tools.outline import TOOL as OUTLINE
from rift.tools.read import TOOL as READ
from rift.tools.repo_map import TOOL as REPO_MAP

N = 5000
FILES = {
    "deep.rs": "fn top() {}\n" + "mod a { " * N + "fn f() {}" + " }" * N + "\n",
    "deep.ts": "function top() {}\n" + "namespace A { " * N + "function f() {}" + " }" * N + "\n",
    "blocks.js": "function top() {}\n" + "{ " * N + "function f() {}" + " }" * N + "\n",
    "sum.py": "def top():\n    pass\n\nX = " + " + ".join(["1"] * 200_000) + "\n",
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_outline_and_read_survive(ctx: ToolContext, proj: Path, name: str) -> None:
    (proj / name).write_text(FILES[name])
    out = call(OUTLINE, ctx, path=name)
    assert out.ok and "top" in out.text, out.text[:200]
    assert call(READ, ctx, path=name, limit=3).ok


def test_repo_map_survives(ctx: ToolContext, proj: Path) -> None:
    for name, text in FILES.items():
        (proj / name).write_text(text)
    out = call(REPO_MAP, ctx)
    assert out.ok and "deep.rs" in out.text and "top" in out.text


def test_the_stdlib_fallback_gives_no_outline_instead_of_crashing() -> None:
    assert _outline._python_ast(FILES["sum.py"]) is None

"""outline and read's outline-instead-of-a-big-file, on real files and real parsers."""

from __future__ import annotations

from pathlib import Path

import pytest
from tooldoubles import RecordingGate, call

from rift.errors import ToolError
from rift.tools import _outline
from rift.tools.base import ToolContext
from rift.tools.outline import TOOL as OUTLINE
from rift.tools.read import OUTLINE_THRESHOLD
from rift.tools.read import TOOL as READ

PY = '''"""Module doc."""
import os


@decorator
class Store(Base):
    """A store."""

    def get(self, key: str) -> int:
        def helper():
            pass
        return 1

    async def put(
        self, key: str, value: int
    ) -> None:
        pass


def top(a, b=2):
    return a
'''


def _lines(text: str) -> list[str]:
    return text.splitlines()


def test_python_outline_has_classes_methods_and_line_numbers(ctx: ToolContext) -> None:
    (ctx.cwd / "store.py").write_text(PY)
    out = call(OUTLINE, ctx, path="store.py")
    assert out.ok
    assert _lines(out.text) == [
        "    6\tclass Store(Base)",
        "    9\t  def get(self, key: str) -> int",
        "   14\t  async def put( self, key: str, value: int ) -> None",
        "   20\tdef top(a, b=2)",
    ]  # local helpers inside function bodies are left out


def test_half_edited_python_still_outlines(ctx: ToolContext) -> None:
    (ctx.cwd / "broken.py").write_text(
        "def ok(x):\n    return (\n\nclass Later:\n    def m(self): pass\n"
    )
    out = call(OUTLINE, ctx, path="broken.py")
    assert out.ok
    assert "def ok(x)" in out.text


def test_ast_fallback_outlines_valid_python_without_tree_sitter() -> None:
    symbols = _outline._python_ast(PY)
    assert symbols is not None
    assert [(s.line, s.depth, s.signature) for s in symbols] == [
        (6, 0, "class Store(Base)"),
        (9, 1, "def get(self, key: str) -> int"),
        (14, 1, "async def put( self, key: str, value: int ) -> None"),
        (20, 0, "def top(a, b=2)"),
    ]
    assert _outline._python_ast("def broken(:\n") is None


@pytest.mark.parametrize(
    ("name", "source", "expected"),
    [
        (
            "app.ts",
            "import x from './x';\nexport class Api {\n  get(id: number): string { return '' }\n}\n"
            "export const handler = async (req: Req) => {\n  return 1;\n};\n"
            "interface Opts { a: number }\nfunction plain() {}\n",
            ["class Api", "get(id: number): string", "const handler = async (req: Req)",
             "interface Opts", "function plain()"],
        ),
        (
            "ui.jsx",
            "function App() { return <div/>; }\nclass Old extends React.Component {\n"
            "  render() { return null }\n}\n",
            ["function App()", "class Old extends React.Component", "render()"],
        ),
        (
            "main.go",
            "package main\n\ntype Server struct {\n\tport int\n}\n\n"
            "func (s *Server) Run(ctx context.Context) error {\n\treturn nil\n}\n\n"
            "func main() {}\n",
            ["Server struct", "func (s *Server) Run(ctx context.Context) error", "func main()"],
        ),
        (
            "lib.rs",
            "pub struct Point { x: i32 }\n\nimpl Point {\n    pub fn new(x: i32) -> Self {\n"
            "        Point { x }\n    }\n}\n\npub trait Shape {\n    fn area(&self) -> f64;\n}\n",
            ["pub struct Point", "impl Point", "pub fn new(x: i32) -> Self", "pub trait Shape",
             "fn area(&self) -> f64;"],
        ),
    ],
)  # fmt: skip
def test_other_languages(ctx: ToolContext, name: str, source: str, expected: list[str]) -> None:
    (ctx.cwd / name).write_text(source)
    out = call(OUTLINE, ctx, path=name)
    assert out.ok, out.text
    assert [line.split("\t", 1)[1].strip() for line in _lines(out.text)] == expected


def test_unsupported_type_and_denied_path(ctx: ToolContext, gate: RecordingGate) -> None:
    (ctx.cwd / "notes.txt").write_text("hello\n")
    with pytest.raises(ToolError, match=r"outline supports .* not notes.txt"):
        call(OUTLINE, ctx, path="notes.txt")
    secret = ctx.cwd / "secret"
    secret.mkdir()
    (secret / "keys.py").write_text("def key(): pass\n")
    gate.denied_paths.add(secret)
    with pytest.raises(ToolError, match=r"blocked by permission rule"):
        call(OUTLINE, ctx, path="secret/keys.py")


def _big_module(functions: int) -> str:
    return "".join(
        f"def f{i}(x):\n    y = x\n    z = y\n    return z\n\n" for i in range(functions)
    )


def test_unbounded_read_of_a_big_source_file_returns_its_outline(ctx: ToolContext) -> None:
    source = _big_module(130)  # 650 lines
    assert len(source.splitlines()) > OUTLINE_THRESHOLD
    (ctx.cwd / "big.py").write_text(source)
    out = call(READ, ctx, path="big.py")
    assert out.ok
    first = out.text.splitlines()[0]
    assert first.startswith("big.py has 650 lines; its outline follows.")
    assert "offset" in first and "limit" in first
    assert "    1\tdef f0(x)" in out.text
    assert "  646\tdef f129(x)" in out.text
    assert "y = x" not in out.text  # bodies are not shown
    assert len(out.text) < len(source) / 2


def test_bounded_reads_small_files_and_other_types_read_normally(ctx: ToolContext) -> None:
    (ctx.cwd / "big.py").write_text(_big_module(130))
    (ctx.cwd / "small.py").write_text(_big_module(10))
    (ctx.cwd / "big.txt").write_text(_big_module(130))
    assert "    2\t    y = x" in call(READ, ctx, path="big.py", offset=1, limit=5).text
    assert "    2\t    y = x" in call(READ, ctx, path="big.py", limit=3000).text
    assert "    2\t    y = x" in call(READ, ctx, path="small.py").text
    assert "    2\t    y = x" in call(READ, ctx, path="big.txt").text


def test_a_big_file_without_symbols_reads_normally(ctx: ToolContext) -> None:
    (ctx.cwd / "data.py").write_text("x = 1\n" * 600)
    out = call(READ, ctx, path="data.py")
    assert out.text.startswith("    1\tx = 1")


def test_outline_accepts_absolute_paths(ctx: ToolContext, proj: Path) -> None:
    (proj / "m.py").write_text("class A:\n    pass\n")
    assert call(OUTLINE, ctx, path=str(proj / "m.py")).text == "    1\tclass A"

"""The write/edit guard judges each format by what its readers accept (issue 32,
regression 1), and strips model debris only where the file type proves it is
debris (issue 30). The real write and edit tools, real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from tooldoubles import call

from rift.tools.base import ToolContext
from rift.tools.edit import TOOL as EDIT
from rift.tools.write import TOOL as WRITE

TSCONFIG = """{
  // the compiler's options
  "compilerOptions": {
    "strict": true, /* always */
    "paths": {"@/*": ["src/*"]},
  },
}
"""
SETTINGS = '{\n  // formatter\n  "editor.formatOnSave": true,\n  "url": "http://x//y",\n}\n'


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("tsconfig.json", TSCONFIG),
        ("tsconfig.build.json", TSCONFIG),
        ("jsconfig.json", TSCONFIG),
        (".vscode/settings.json", SETTINGS),
        ("conf.jsonc", SETTINGS),
        ("new.py", "type Vector = list[float]\n"),
        ("generic.py", "def first[T](items: list[T]) -> T:\n    return items[0]\n"),
        ("klass.py", "class Box[T]:\n    def get(self) -> T: ...\n"),
        ("fstr.py", 'name = "x"\nprint(f"{"nested"} {name}")\n'),
    ],
)
def test_valid_files_are_written(ctx: ToolContext, proj: Path, name: str, text: str) -> None:
    (proj / name).parent.mkdir(parents=True, exist_ok=True)
    out = call(WRITE, ctx, path=name, content=text)
    assert out.ok, out.text
    assert (proj / name).read_text() == text


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("package.json", '{\n  // no\n  "name": "x"\n}\n'),
        ("tsconfig.json", '{"compilerOptions": {"strict": true\n'),
        ("bad.py", "def f(:\n    pass\n"),
        ("indent.py", "def f():\n    return 1\n        x = 2\n"),
    ],
)
def test_broken_files_are_still_refused(ctx: ToolContext, proj: Path, name: str, text: str) -> None:
    out = call(WRITE, ctx, path=name, content=text)
    assert not out.ok and "would no longer parse" in out.text
    assert not (proj / name).exists()


def test_an_edit_that_breaks_a_jsonc_file_is_refused(ctx: ToolContext, proj: Path) -> None:
    (proj / "tsconfig.json").write_text(TSCONFIG)
    out = call(EDIT, ctx, path="tsconfig.json", old_string='"strict": true,', new_string='"s": [')
    assert not out.ok and "would no longer parse" in out.text
    ok = call(EDIT, ctx, path="tsconfig.json", old_string="true, /*", new_string="false, /*")
    assert ok.ok, ok.text


FENCED = "```\nInstall with pip.\n```\n"
WRAPPED = '<tool_call>\n{"name": "read", "arguments": {"path": "a"}}\n</tool_call>\n'


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("README", FENCED),
        ("NOTES", FENCED),
        ("tests/fixtures/call.txt", WRAPPED),
        ("tests/fixtures/call.xml", WRAPPED),
    ],
)
def test_documents_and_fixtures_are_stored_as_written(
    ctx: ToolContext, proj: Path, name: str, text: str
) -> None:
    (proj / name).parent.mkdir(parents=True, exist_ok=True)
    out = call(WRITE, ctx, path=name, content=text)
    assert out.ok, out.text
    assert (proj / name).read_text() == text


def test_debris_in_code_is_still_stripped(ctx: ToolContext, proj: Path) -> None:
    assert call(WRITE, ctx, path="a.py", content="```python\nx = 1\n```\n").ok
    assert (proj / "a.py").read_text() == "x = 1\n"
    wrapped = "<tool_response>\ny = 2\n</tool_response>\n"
    assert call(WRITE, ctx, path="b.py", content=wrapped).ok
    assert (proj / "b.py").read_text() == "y = 2\n"


def test_a_package_named_like_the_project_never_replaces_a_root_file(
    ctx: ToolContext, proj: Path
) -> None:
    # With no root file there is nothing to replace: the prefix is still dropped.
    assert call(WRITE, ctx, path=f"{proj.name}/new.py", content="N = 1\n").ok
    assert (proj / "new.py").exists()
    (proj / "main.py").write_text("ROOT = 1\n")
    out = call(WRITE, ctx, path=f"{proj.name}/main.py", content="PACKAGE = 1\n")
    assert out.ok, out.text
    assert (proj / "main.py").read_text() == "ROOT = 1\n"
    assert (proj / proj.name / "main.py").read_text() == "PACKAGE = 1\n"

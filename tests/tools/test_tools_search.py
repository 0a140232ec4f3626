"""ls, grep and glob: what a developer would see — gitignore, hidden, binary and denied skipped."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tooldoubles import RecordingGate, call

from rift.errors import ToolError
from rift.tools.base import ToolContext
from rift.tools.glob import TOOL as GLOB
from rift.tools.grep import TOOL as GREP
from rift.tools.grep import is_ignored, parse_gitignore
from rift.tools.ls import TOOL as LS

BACKENDS = [
    "python",
    pytest.param(
        "rg",
        marks=pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep (rg) not on PATH"),
    ),
]


def _tree(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


# ---------------------------------------------------------------------- ls


def test_ls_sorted_with_dir_suffix_and_denied_hidden(
    proj: Path, ctx: ToolContext, gate: RecordingGate
) -> None:
    _tree(proj, {"b.txt": "", "a/x.txt": "", ".env": "SECRET=1", "c.py": ""})
    gate.denied_paths.add(proj / ".env")
    assert call(LS, ctx).text == "a/\nb.txt\nc.py"
    assert call(LS, ctx, path="a").text == "x.txt"


def test_ls_empty_missing_file_and_denied(
    proj: Path, ctx: ToolContext, gate: RecordingGate
) -> None:
    (proj / "empty").mkdir()
    (proj / "f.txt").write_text("")
    assert call(LS, ctx, path="empty").text == "(empty directory)"
    with pytest.raises(ToolError, match="not a directory"):
        call(LS, ctx, path="f.txt")
    with pytest.raises(ToolError, match="no such file"):
        call(LS, ctx, path="nope")
    gate.denied_paths.add(proj / "empty")
    with pytest.raises(ToolError, match="blocked"):
        call(LS, ctx, path="empty")


# -------------------------------------------------------------------- grep


@pytest.fixture(params=BACKENDS)
def backend_ctx(request: pytest.FixtureRequest, ctx: ToolContext) -> ToolContext:
    ctx.services.grep_backend = request.param
    return ctx


def test_grep_hits_skip_ignored_hidden_binary_denied(
    proj: Path, backend_ctx: ToolContext, gate: RecordingGate
) -> None:
    _tree(
        proj,
        {
            ".gitignore": "build/\n*.log\n!keep.log\n/rootonly.txt\n",
            "src/app.py": "import os\nneedle = 1\n",
            "src/rootonly.txt": "needle nested, not anchored away\n",
            "rootonly.txt": "needle at root\n",
            "build/out.py": "needle\n",
            "debug.log": "needle\n",
            "keep.log": "needle kept\n",
            ".hidden/h.py": "needle\n",
            "blob.bin": b"needle\0binary",
            "secret/key.txt": "needle\n",
            "node_modules/m/index.js": "needle\n",
            "sub/.gitignore": "*.tmp\n",
            "sub/a.tmp": "needle\n",
            "sub/a.txt": "needle   \n",
        },
    )
    gate.denied_paths.add(proj / "secret")
    out = call(GREP, backend_ctx, pattern="needle")
    assert out.text.splitlines() == [
        "keep.log:1: needle kept",
        "src/app.py:2: needle = 1",
        "src/rootonly.txt:1: needle nested, not anchored away",
        "sub/a.txt:1: needle",
    ]


def test_grep_path_glob_and_no_matches(proj: Path, backend_ctx: ToolContext) -> None:
    _tree(proj, {"a/x.py": "hit\n", "a/y.md": "hit\n", "b/z.py": "hit\n"})
    assert call(GREP, backend_ctx, pattern="hit", path="a").text == "a/x.py:1: hit\na/y.md:1: hit"
    by_name = call(GREP, backend_ctx, pattern="hit", glob="*.py").text
    assert by_name == "a/x.py:1: hit\nb/z.py:1: hit"
    assert call(GREP, backend_ctx, pattern="h.t", path="a/y.md").text == "a/y.md:1: hit"
    assert call(GREP, backend_ctx, pattern="miss").text == "no matches"


def test_grep_default_backend(proj: Path, ctx: ToolContext) -> None:
    _tree(proj, {".gitignore": "skip/\n", "a.txt": "word\n", "skip/b.txt": "word\n"})
    assert call(GREP, ctx, pattern=r"\bword\b").text == "a.txt:1: word"


def test_grep_parent_gitignore_applies_to_subdirectory_search(
    proj: Path, backend_ctx: ToolContext
) -> None:
    _tree(proj, {".gitignore": "*.gen.py\n", "pkg/a.py": "x\n", "pkg/a.gen.py": "x\n"})
    assert call(GREP, backend_ctx, pattern="x", path="pkg").text == "pkg/a.py:1: x"


def test_grep_caps_at_100_and_cuts_long_lines(proj: Path, backend_ctx: ToolContext) -> None:
    _tree(proj, {"many.txt": "match\n" * 150, "wide.txt": "match " + "w" * 400 + "\n"})
    out = call(GREP, backend_ctx, pattern="match")
    lines = out.text.splitlines()
    assert len(lines) == 101
    assert "stopped at 100 matches" in lines[-1]
    wide = call(GREP, backend_ctx, pattern="match", path="wide.txt").text
    assert wide == "wide.txt:1: " + ("match " + "w" * 400)[:250]


def test_grep_invalid_regex(proj: Path, backend_ctx: ToolContext) -> None:
    (proj / "f.txt").write_text("x\n")
    with pytest.raises(ToolError, match="invalid regex"):
        call(GREP, backend_ctx, pattern="(unclosed")


def test_grep_python_only_regex_falls_back(proj: Path, backend_ctx: ToolContext) -> None:
    (proj / "f.txt").write_text("foobar\nbazbar\n")
    assert call(GREP, backend_ctx, pattern="(?<=foo)bar").text == "f.txt:1: foobar"


def test_grep_missing_path(backend_ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="no such file"):
        call(GREP, backend_ctx, pattern="x", path="missing_dir")


@pytest.mark.parametrize(
    ("pattern", "path", "is_dir", "ignored"),
    [
        ("*.log", "a/b/c.log", False, True),
        ("/top.txt", "top.txt", False, True),
        ("/top.txt", "sub/top.txt", False, False),
        ("build/", "build", True, True),
        ("build/", "build", False, False),
        ("docs/**/*.md", "docs/a/b/c.md", False, True),
        ("docs/**/*.md", "docs/c.md", False, True),
        ("**/cache", "x/y/cache", True, True),
        ("a/**", "a/b/c", False, True),
        ("file[0-9].txt", "file7.txt", False, True),
        ("?.txt", "ab.txt", False, False),
    ],
)
def test_gitignore_matcher(pattern: str, path: str, is_dir: bool, ignored: bool) -> None:
    assert is_ignored(path, is_dir, parse_gitignore(pattern, "")) is ignored


def test_gitignore_negation_and_nested_base() -> None:
    rules = parse_gitignore("*.txt\n!keep.txt\n# comment\n\n", "") + parse_gitignore(
        "/local.py\n", "pkg"
    )
    assert is_ignored("x.txt", False, rules)
    assert not is_ignored("keep.txt", False, rules)
    assert is_ignored("pkg/local.py", False, rules)
    assert not is_ignored("pkg/sub/local.py", False, rules)
    assert not is_ignored("local.py", False, rules)


# -------------------------------------------------------------------- glob


def test_glob_star_crosses_slash_sorted(proj: Path, ctx: ToolContext) -> None:
    _tree(
        proj,
        {
            "z.py": "",
            "src/b.py": "",
            "src/a/c.py": "",
            "src/a/c.txt": "",
            ".git/hooks/x.py": "",
            "node_modules/p/i.py": "",
            ".gitignore": "gen/\n",
            "gen/g.py": "",
        },
    )
    assert call(GLOB, ctx, pattern="*.py").text == "src/a/c.py\nsrc/b.py\nz.py"
    assert call(GLOB, ctx, pattern="**/*.py").text == "src/a/c.py\nsrc/b.py\nz.py"
    assert call(GLOB, ctx, pattern="src/*.{py,txt}").text == "src/a/c.py\nsrc/a/c.txt\nsrc/b.py"
    assert call(GLOB, ctx, pattern="*.py", path="src").text == "src/a/c.py\nsrc/b.py"
    assert call(GLOB, ctx, pattern="*.rs").text == "no files matched"


def test_glob_caps_at_200(proj: Path, ctx: ToolContext) -> None:
    _tree(proj, {f"d/f{n:03}.txt": "" for n in range(250)})
    lines = call(GLOB, ctx, pattern="*.txt").text.splitlines()
    assert len(lines) == 201
    assert lines[0] == "d/f000.txt" and lines[199] == "d/f199.txt"
    assert "250 files matched" in lines[-1]


def test_glob_skips_denied(proj: Path, ctx: ToolContext, gate: RecordingGate) -> None:
    _tree(proj, {"a.key": "", "secret/b.key": ""})
    gate.denied_paths.add(proj / "secret")
    assert call(GLOB, ctx, pattern="*.key").text == "a.key"

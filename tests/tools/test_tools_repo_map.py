"""repo_map on real trees: ranking by import in-degree, caps, the persistent outline cache."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tooldoubles import RecordingGate, RecordingJournal, call

from rift.config.load import Config
from rift.errors import ToolError
from rift.fs.paths import Paths
from rift.tools.base import ToolContext
from rift.tools.repo_map import CACHED_ROOTS, MAX_FILES, imported_words
from rift.tools.repo_map import TOOL as REPO_MAP
from rift.tools.services import ToolServices


def _ctx(proj: Path, home: Path) -> ToolContext:
    config = Config(paths=Paths.from_env({"HOME": str(home)}), cwd=proj)
    return ToolContext(
        cwd=proj,
        gate=RecordingGate(),
        journal=RecordingJournal(),
        services=ToolServices(settings=config),
    )


def _touch(path: Path, text: str, age: int) -> None:
    """Write `path` with an mtime `age` seconds in the past (newest = smallest age)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    stamp = 1_700_000_000 - age
    os.utime(path, (stamp, stamp))


def _sections(text: str) -> list[str]:
    return [line[4:-4] for line in text.splitlines() if line.startswith("=== ")]


def test_most_imported_files_come_first(tmp_path: Path, proj: Path) -> None:
    _touch(proj / "pkg/core.py", "class Engine:\n    def run(self): pass\n", age=500)
    _touch(proj / "pkg/util.py", "from pkg.core import Engine\ndef helper(): pass\n", age=400)
    _touch(proj / "app.py", "from pkg import core, util\ndef main(): pass\n", age=10)
    _touch(proj / "cli.py", "import pkg.core\ndef cli(): pass\n", age=20)
    _touch(proj / "web/index.ts", "import { x } from '../pkg/core';\nexport function serve() {}\n",
           age=30)  # fmt: skip
    _touch(proj / "README.md", "# not source\n", age=1)
    _touch(proj / "pkg/__init__.py", "", age=2)  # imported (as pkg) but says nothing
    out = call(REPO_MAP, _ctx(proj, tmp_path / "home"))
    assert out.ok
    # core: imported by 4 files; util: by 1; then the rest newest first.
    assert _sections(out.text) == ["pkg/core.py", "pkg/util.py", "app.py", "cli.py", "web/index.ts"]
    assert "=== pkg/core.py ===\n    1\tclass Engine\n    2\t  def run(self)\n" in out.text
    assert out.text.rstrip().endswith(
        "(5 of 6 source files shown, most imported first; outline or read a file for more)"
    )


def test_max_files_and_its_cap(tmp_path: Path, proj: Path) -> None:
    for i in range(70):
        _touch(proj / f"m{i:02}.py", f"def f{i}(): pass\n", age=i)
    ctx = _ctx(proj, tmp_path / "home")
    assert len(_sections(call(REPO_MAP, ctx, max_files=3).text)) == 3
    assert _sections(call(REPO_MAP, ctx, max_files="2").text) == ["m00.py", "m01.py"]
    assert len(_sections(call(REPO_MAP, ctx, max_files=500).text)) == MAX_FILES
    assert len(_sections(call(REPO_MAP, ctx).text)) == 20


def test_outlines_are_cached_on_disk_and_refreshed_when_a_file_changes(
    tmp_path: Path, proj: Path
) -> None:
    home = tmp_path / "home"
    _touch(proj / "a.py", "def first(): pass\n", age=5)
    call(REPO_MAP, _ctx(proj, home))
    stores = list((home / ".local/share/rift/outline-cache").glob("*.json"))
    assert len(stores) == 1
    entries = json.loads(stores[0].read_text())
    assert set(entries) == {"a.py"}
    assert entries["a.py"][2] == [[1, 0, "def first()"]]

    _touch(proj / "a.py", "def second_version(): pass\n", age=1)  # new mtime and size
    _touch(proj / "b.py", "def other(): pass\n", age=2)
    out = call(REPO_MAP, _ctx(proj, home))
    assert "def second_version()" in out.text
    assert "def first()" not in out.text
    assert set(json.loads(stores[0].read_text())) == {"a.py", "b.py"}


def test_ignored_hidden_and_denied_files_are_left_out(tmp_path: Path, proj: Path) -> None:
    _touch(proj / ".gitignore", "build/\n", age=9)
    _touch(proj / "build/gen.py", "def generated(): pass\n", age=1)
    _touch(proj / ".hidden/h.py", "def hidden(): pass\n", age=1)
    _touch(proj / "secret/s.py", "def secret(): pass\n", age=1)
    _touch(proj / "ok.py", "def fine(): pass\n", age=3)
    ctx = _ctx(proj, tmp_path / "home")
    assert isinstance(ctx.gate, RecordingGate)
    ctx.gate.denied_paths.add(proj / "secret")
    assert _sections(call(REPO_MAP, ctx).text) == ["ok.py"]


def test_empty_tree_and_bad_path(tmp_path: Path, proj: Path) -> None:
    ctx = _ctx(proj, tmp_path / "home")
    assert call(REPO_MAP, ctx).text == "no supported source files under ."
    (proj / "f.py").write_text("x = 1\n")
    with pytest.raises(ToolError, match="not a directory"):
        call(REPO_MAP, ctx, path="f.py")


def test_imported_words() -> None:
    assert imported_words("from a.b import c, d\nimport os, sys\n") >= {"a", "b", "c", "d", "os"}
    assert {"core", "pkg"} <= imported_words("import { x } from '../pkg/core.js'")
    assert {"crate", "engine"} <= imported_words("use crate::engine::Run;\nmod engine;\n")


def test_only_the_most_recent_repositories_keep_a_cache(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for i in range(CACHED_ROOTS + 3):
        repo = tmp_path / f"repo{i}"
        _touch(repo / "a.py", f"def f{i}(): pass\n", age=1)
        call(REPO_MAP, _ctx(repo, home))
    stores = list((home / ".local/share/rift/outline-cache").glob("*.json"))
    assert len(stores) == CACHED_ROOTS

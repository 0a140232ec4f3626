"""rift's data classes use one mechanism, `rift.record`, never `dataclasses` beside it.

`@record` is `@dataclass` at a fraction of the import cost (src/rift/record.py);
two mechanisms for one purpose meant two sets of semantics to remember (a
record's `replace` on a dataclass) and the slower one creeping back onto the
fast paths.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "rift"


def dataclass_users(root: Path) -> list[str]:
    """Modules under `root` that import the `dataclasses` module or from it."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if "dataclasses" in names:
                found.append(path.relative_to(root).as_posix())
                break
    return found


def test_no_module_uses_dataclasses() -> None:
    assert dataclass_users(PACKAGE) == [], "use rift.record's @record instead"


def test_the_check_would_catch_a_dataclass(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("from dataclasses import dataclass\n")
    (tmp_path / "b.py").write_text("import dataclasses\n")
    (tmp_path / "c.py").write_text("from rift.record import record\n")
    assert dataclass_users(tmp_path) == ["a.py", "b.py"]

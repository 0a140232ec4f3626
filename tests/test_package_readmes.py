"""Every package under src/rift has a README.md that names the file to read first.

A reader (or a model) opening a folder gets one sentence of orientation and a starting
point; a README whose first file was moved or renamed fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "rift"
_FIRST = re.compile(r"Read\s+`([\w./]+)`\s+first")


def test_every_package_names_its_first_file() -> None:
    problems = []
    for init in sorted(PACKAGE.rglob("__init__.py")):
        folder = init.parent
        if folder == PACKAGE:
            continue  # the repository's README.md and docs/architecture.md cover the top
        readme = folder / "README.md"
        where = folder.relative_to(PACKAGE)
        if not readme.is_file():
            problems.append(f"{where}: no README.md")
            continue
        match = _FIRST.search(readme.read_text(encoding="utf-8"))
        if match is None:
            problems.append(f"{where}/README.md: no 'Read `file` first'")
        elif not (folder / match.group(1)).exists():
            problems.append(f"{where}/README.md: {match.group(1)} does not exist")
    assert not problems, "\n".join(problems)

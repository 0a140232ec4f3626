"""The new tools keep their libraries out of startup: parsers and HTML conversion load on use."""

from __future__ import annotations

import json
import subprocess
import sys

LAZY = ("tree_sitter", "tree_sitter_python", "html2text")


def _modules_after(code: str) -> set[str]:
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_registry_and_serve_path_do_not_import_parsers_or_html2text() -> None:
    loaded = _modules_after("import rift.frontends.serve, rift.tools; rift.tools.builtin_tools()")
    assert "rift.tools.outline" in loaded and "rift.tools.fetch" in loaded
    assert not {m for m in loaded if m.split(".")[0] in LAZY}


def test_outlining_loads_the_parser_on_use() -> None:
    loaded = _modules_after(
        "from pathlib import Path\nfrom rift.tools import _outline\n"
        "_outline.outline(Path('x.py'), 'def f(): pass\\n')"
    )
    assert "tree_sitter_python" in loaded
    assert "tree_sitter_rust" not in loaded  # one grammar per language, when needed

"""The command table lists every command of the core's registry (issue 32).

The table moved from the README to docs/commands.md (issue 43); the README links it.
"""

from __future__ import annotations

from pathlib import Path

from rift.core import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "docs" / "commands.md"


def test_every_registry_command_is_in_the_command_table() -> None:
    table = TABLE.read_text(encoding="utf-8")
    missing = [spec.name for spec in COMMANDS if f"| `/{spec.name}" not in table]
    assert not missing, f"docs/commands.md's table lacks: {missing}"


def test_the_readme_links_the_command_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/commands.md)" in readme

"""The README's command table lists every command of the core's registry (issue 32)."""

from __future__ import annotations

from pathlib import Path

from rift.core import COMMANDS

README = Path(__file__).resolve().parent.parent / "README.md"


def test_every_registry_command_is_in_the_readme_table() -> None:
    text = README.read_text(encoding="utf-8")
    table = text.split("### Commands", 1)[1].split("\n## ", 1)[0]
    missing = [spec.name for spec in COMMANDS if f"| `/{spec.name}" not in table]
    assert not missing, f"README's command table lacks: {missing}"

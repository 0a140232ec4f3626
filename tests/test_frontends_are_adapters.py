"""Front ends are adapters: none reaches into the conversation's state (issue 15).

The conversation owner (core/conversation/owner.py) is the one place that decides;
serve, the printer, the TUI and ACP only call it and render its events. A
front end that reads `agent.messages` or pokes `agent.journal` has started to
decide again, which is how the first wave's copies drifted apart.
"""

from __future__ import annotations

import re
from pathlib import Path

FRONTENDS = Path(__file__).resolve().parent.parent / "src" / "rift" / "frontends"
FORBIDDEN = re.compile(r"\bagent\.(messages|journal|binding|ctx)\b")


def test_no_front_end_reaches_into_agent_state() -> None:
    offenders = [
        f"{path.relative_to(FRONTENDS)}:{n}: {line.strip()}"
        for path in sorted(FRONTENDS.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FORBIDDEN.search(line)
    ]
    assert not offenders, "front ends must go through Conversation:\n" + "\n".join(offenders)


def test_the_check_would_catch_an_offender() -> None:
    assert FORBIDDEN.search("last = self.driver.agent.messages[-1]")
    assert FORBIDDEN.search("agent.journal.undo_last_turn()")
    assert not FORBIDDEN.search("conversation.history()")


CORE_IMPORT = re.compile(r"^\s*(?:from|import)\s+(rift\.core(?:\.\w+)*)", re.MULTILINE)
"""Any import of the core, by module path (`from rift.core.x import y`, `import rift.core.x`)."""


def core_imports_beyond_the_front_door(root: Path) -> list[str]:
    """Every import under `root` of a core module other than the front door `rift.core`."""
    return [
        f"{path.relative_to(root.parent)}: {module}"
        for path in sorted(root.rglob("*.py"))
        for module in CORE_IMPORT.findall(path.read_text(encoding="utf-8"))
        if module != "rift.core"
    ]


def test_faces_import_the_core_only_through_its_front_door() -> None:
    """Faces (and the CLI) use `rift.core` and `rift.events`, so the core's insides may move."""
    offenders = core_imports_beyond_the_front_door(FRONTENDS)
    cli = FRONTENDS.parent / "cli.py"
    offenders += [
        f"cli.py: {m}"
        for m in CORE_IMPORT.findall(cli.read_text(encoding="utf-8"))
        if m != "rift.core"
    ]
    assert not offenders, "import these through rift.core:\n" + "\n".join(offenders)


def test_the_front_door_check_would_catch_a_deep_import(tmp_path: Path) -> None:
    face = tmp_path / "frontends"
    face.mkdir()
    (face / "x.py").write_text("from rift.core import Conversation\n")
    assert core_imports_beyond_the_front_door(face) == []
    (face / "y.py").write_text("def f():\n    from rift.core.loop.turn import Turn\n")
    assert core_imports_beyond_the_front_door(face) == ["frontends/y.py: rift.core.loop.turn"]

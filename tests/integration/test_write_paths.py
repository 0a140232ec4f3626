"""Paths a write must not misread (issue 30): a symlinked memory file is written through,
and `<project-name>/main.py` never overwrites the root `main.py`."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_remember_writes_through_a_symlinked_memory_file(harness: Any) -> None:
    project: Path = harness.project
    (project / "docs").mkdir()
    (project / "docs" / "memory.md").write_text("- first fact\n")
    (project / ".rift").mkdir()
    (project / ".rift" / "memory.md").symlink_to("../docs/memory.md")
    step = call("remember", fact="tests run with make check")
    run = harness.run("remember it", harness.server([step, {"content": "ok"}]))
    assert run.code == 0, run.describe()
    assert (project / ".rift" / "memory.md").is_symlink()
    text = (project / "docs" / "memory.md").read_text()
    assert text == "- first fact\n- tests run with make check\n"


def test_a_new_folder_named_like_the_project_does_not_overwrite_the_root_file(
    harness: Any,
) -> None:
    project: Path = harness.project
    (project / "main.py").write_text("print('root')\n")
    step = call("write", path=f"{project.name}/main.py", content="print('package')\n")
    run = harness.run("add the package", harness.server([step, {"content": "ok"}]))
    assert run.code == 0, run.describe()
    assert (project / "main.py").read_text() == "print('root')\n"
    assert (project / project.name / "main.py").read_text() == "print('package')\n"


def test_the_project_name_prefix_still_maps_when_unambiguous(harness: Any) -> None:
    project: Path = harness.project
    step = call("write", path=f"{project.name}/util.py", content="X = 1\n")
    run = harness.run("add util", harness.server([step, {"content": "ok"}]))
    assert run.code == 0, run.describe()
    assert (project / "util.py").read_text() == "X = 1\n"
    assert not (project / project.name).exists()

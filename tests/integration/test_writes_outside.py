"""Issue 34: write and edit stay inside the project unless the user says otherwise.

Real `rift -p` and `rift --serve` against the scripted fake server, in a temp
project whose parent, HOME and /tmp stand for the rest of the user's disk.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

OUTSIDE = "outside the project: "


def write(path: str, content: str = "x = 1\n") -> dict[str, Any]:
    return {"tool_calls": [{"name": "write", "arguments": {"path": path, "content": content}}]}


@pytest.fixture
def tmp_outside() -> Iterator[Path]:
    path = Path("/tmp") / f"rift-outside-{uuid.uuid4().hex}.py"
    yield path
    path.unlink(missing_ok=True)


def _targets(project: Path, tmp_outside: Path) -> dict[str, tuple[str, Path]]:
    home = Path(os.environ["HOME"])
    (project.parent / "elsewhere").mkdir()
    (project / "out").symlink_to(project.parent / "elsewhere")
    return {
        "parent": ("../x.py", project.parent / "x.py"),
        "tmp": (str(tmp_outside), tmp_outside),
        "home": ("~/x.py", home / "x.py"),
        "symlink-out": ("out/x.py", project.parent / "elsewhere" / "x.py"),
    }


@pytest.mark.parametrize("which", ["parent", "tmp", "home", "symlink-out"])
def test_headless_write_outside_is_refused_with_the_resolved_path(
    harness: Any, tmp_outside: Path, which: str
) -> None:
    raw, target = _targets(harness.project, tmp_outside)[which]
    run = harness.run("write it", harness.server([write(raw), {"content": "done"}]))
    assert run.code == 0, run.describe()
    assert not target.exists()
    [result] = run.tool_results().values()
    assert f"{OUTSIDE}{target}; write inside it" in result


def test_headless_absolute_path_inside_the_project_is_written(harness: Any) -> None:
    target = harness.project / "pkg" / "x.py"
    run = harness.run("write it", harness.server([write(str(target)), {"content": "done"}]))
    assert run.code == 0, run.describe()
    assert target.read_text() == "x = 1\n"


def test_a_git_root_above_the_start_dir_is_the_project(harness: Any) -> None:
    (harness.project / ".git").mkdir()
    sub = harness.project / "src"
    sub.mkdir()
    harness.project = sub  # rift starts below the repository's root
    run = harness.run(
        "write it", harness.server([write("../README.md", "hi\n"), {"content": "ok"}])
    )
    assert run.code == 0, run.describe()
    assert (sub.parent / "README.md").read_text() == "hi\n"


def test_add_dir_lets_a_write_through(harness: Any) -> None:
    notes = harness.project.parent / "notes"
    notes.mkdir()
    server = harness.server([write("../notes/todo.md", "- a\n"), {"content": "done"}])
    run = harness.run("note it", server, "--add-dir", str(notes))
    assert run.code == 0, run.describe()
    assert (notes / "todo.md").read_text() == "- a\n"


def test_user_config_adds_a_directory_and_a_project_file_cannot(harness: Any) -> None:
    notes = harness.project.parent / "notes"
    notes.mkdir()
    other = harness.project.parent / "other"
    other.mkdir()
    harness.write_config({"permissions": {"additional_directories": [str(notes)]}})
    harness.write_project_config({"permissions": {"additional_directories": [str(other)]}})
    steps = [write("../notes/a.md", "a\n"), write("../other/b.md", "b\n"), {"content": "ok"}]
    run = harness.run("go", harness.server(steps))
    assert run.code == 0, run.describe()
    assert (notes / "a.md").read_text() == "a\n"
    assert not (other / "b.md").exists()
    assert "ignoring 'permissions.additional_directories'" in run.stderr


def test_an_allow_rule_naming_the_outside_path_lifts_it(harness: Any) -> None:
    home = Path(os.environ["HOME"])
    harness.write_config({"permissions": {"allow": ["Edit(~/notes/**)"]}})
    run = harness.run("go", harness.server([write("~/notes/n.md", "n\n"), {"content": "ok"}]))
    assert run.code == 0, run.describe()
    assert (home / "notes" / "n.md").read_text() == "n\n"


def test_a_missing_added_directory_is_one_warning(harness: Any) -> None:
    run = harness.run("hi", harness.server([{"content": "ok"}]), "--add-dir", "nope")
    assert run.code == 0, run.describe()
    assert "ignoring added directory nope: not a directory" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("answer", ["allow", "deny"])
def test_serve_asks_for_a_write_outside_even_with_approval_off(
    serve: Any, fake_server: Any, project: Path, answer: str
) -> None:
    target = project.parent / "x.py"
    client = serve(fake_server({"turns": [write("../x.py"), {"content": "ok"}]}))
    client.send({"cmd": "set_approval", "approve": False})
    client.send({"cmd": "prompt", "text": "go"})
    ask = client.expect("ask")
    assert str(target) in ask["question"] and "outside the project" in ask["question"]
    client.send({"cmd": "answer", "id": ask["id"], "text": answer})
    client.expect("done")
    assert target.exists() == (answer == "allow")

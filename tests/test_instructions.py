"""Project instruction files and memory, read from a real directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rift.core.context.instructions import load_project_instructions


def test_nothing_gives_empty_string(tmp_path: Path) -> None:
    assert load_project_instructions(tmp_path) == ""
    (tmp_path / "AGENTS.md").write_text("  \n\n")
    assert load_project_instructions(tmp_path) == ""


def test_files_are_concatenated_in_order_with_headers(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("claude rules\n")
    (tmp_path / "RIFT.md").write_text("rift rules\n")
    (tmp_path / "AGENTS.md").write_text("agent rules\n")
    assert load_project_instructions(tmp_path) == (
        "# From RIFT.md\n\nrift rules\n\n"
        "# From AGENTS.md\n\nagent rules\n\n"
        "# From CLAUDE.md\n\nclaude rules"
    )


def test_subdirectory_files_are_not_read(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "AGENTS.md").write_text("nested")
    assert load_project_instructions(tmp_path) == ""


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_symlinked_duplicate_is_read_once(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("shared rules")
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    text = load_project_instructions(tmp_path)
    assert text.count("shared rules") == 1 and "# From AGENTS.md" in text


def test_total_is_capped_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "RIFT.md").write_text("r" * 10_000)
    (tmp_path / "AGENTS.md").write_text("a" * 10_000)
    text = load_project_instructions(tmp_path, cap=12_000)
    body, note = text.rsplit("\n\n", 1)
    assert len(body) <= 12_000
    assert note == "[… project instructions truncated at 12000 characters]"
    assert body.startswith("# From RIFT.md") and body.endswith("a")


def test_memory_has_its_own_budget(tmp_path: Path) -> None:
    (tmp_path / "RIFT.md").write_text("x" * 50_000)
    (tmp_path / ".rift").mkdir()
    facts = "".join(f"- fact {n}\n" for n in range(1000))
    (tmp_path / ".rift" / "memory.md").write_text(facts)
    text = load_project_instructions(tmp_path)
    head, memory = text.split("# Project memory (.rift/memory.md)\n\n")
    assert len(head) < 16_200
    assert len(memory) <= 4_100
    assert memory.startswith("[… older memory entries omitted")
    assert memory.endswith("- fact 999")
    assert "\n- fact" in memory and "\nact" not in memory  # cut on a line boundary


def test_memory_alone(tmp_path: Path) -> None:
    (tmp_path / ".rift").mkdir()
    (tmp_path / ".rift" / "memory.md").write_text("- uses uv\n")
    assert load_project_instructions(tmp_path) == "# Project memory (.rift/memory.md)\n\n- uses uv"


def test_invalid_utf8_does_not_fail(tmp_path: Path) -> None:
    (tmp_path / "RIFT.md").write_bytes(b"caf\xe9 rules")
    assert "caf\ufffd rules" in load_project_instructions(tmp_path)


def test_only_regular_files_inside_the_project_that_the_rules_allow(tmp_path: Path) -> None:
    project, outside = tmp_path / "p", tmp_path / "secret.md"
    project.mkdir()
    outside.write_text("OUTSIDE", encoding="utf-8")
    (project / "RIFT.md").symlink_to(outside)
    (project / "docs").mkdir()
    (project / "AGENTS.md").symlink_to(project / "docs")  # a directory is not a file
    (project / "CLAUDE.md").write_text("DENIED", encoding="utf-8")
    (project / ".rift").symlink_to(tmp_path)  # memory.md through a directory that leaves
    (tmp_path / "memory.md").write_text("MEMORY", encoding="utf-8")
    text = load_project_instructions(project, readable=lambda p: p.name != "CLAUDE.md")
    assert text == ""
    (project / "CLAUDE.md").unlink()
    (project / "CLAUDE.md").symlink_to("RIFT.md")
    assert "OUTSIDE" not in load_project_instructions(project)

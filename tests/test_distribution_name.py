"""The distribution name is rift's own: PyPI's `rift` is an unrelated project (issue 44)."""

from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path

import rift

ROOT = Path(__file__).resolve().parents[1]


def test_pyproject_names_the_distribution_rift_uses_for_lookups() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == rift.DISTRIBUTION == "rift-agent"
    assert project["scripts"] == {"rift": "rift.cli:entry"}  # the command stays `rift`


def test_the_installed_metadata_is_found_under_the_new_name() -> None:
    """Holds once the checkout is installed (`pip install -e .`), as CI does."""
    dist = importlib.metadata.distribution(rift.DISTRIBUTION)
    scripts = {e.name: e.value for e in dist.entry_points if e.group == "console_scripts"}
    assert scripts["rift"] == "rift.cli:entry"

"""`~/.git-credentials` and `~/.npmrc` are in the built-in credential guard (issue 30):
the real rules engine, for read and for bash words naming them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rift.config.load import PermissionsConfig
from rift.core.permissions.rules import Rules


@pytest.mark.parametrize("name", [".git-credentials", ".npmrc", ".config/git/credentials"])
def test_token_stores_are_read_denied(tmp_path: Path, name: str) -> None:
    home = tmp_path / "home"
    project = tmp_path / "project"
    project.mkdir(parents=True)
    store = home / name
    store.parent.mkdir(parents=True, exist_ok=True)
    store.write_text("https://user:ghp_token@github.com\n")
    rules = Rules.from_config(PermissionsConfig(), cwd=project, home=home)
    assert rules.verdict_for_path("read", store).kind == "deny"
    assert rules.verdict_for_bash(f"cat ~/{name}").kind == "deny"
    lifted = Rules.from_config(PermissionsConfig(allow_credentials=True), cwd=project, home=home)
    assert lifted.verdict_for_path("read", store).kind != "deny"

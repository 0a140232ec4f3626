"""The trust store: two JSON arrays, written atomically; a corrupt one trusts nothing."""

from __future__ import annotations

import json
from pathlib import Path

from rift.extend.trust import TrustStore, plugin_trust_key
from rift.paths import Paths


def _paths(tmp_path: Path) -> Paths:
    return Paths.from_env({"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")})


def test_missing_store_is_empty_and_entries_persist(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    store = TrustStore.load(paths)
    assert (store.hooks, store.mcp, store.warnings) == (set(), set(), [])
    store.trust_hook_entry("make lint")
    store.trust_mcp('["srv"]')
    assert json.loads(paths.trusted_hooks.read_text()) == ["make lint"]
    assert json.loads(paths.trusted_mcp.read_text()) == ['["srv"]']
    assert TrustStore.load(paths).hooks == {"make lint"}


def test_adding_keeps_entries_another_process_wrote(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    store = TrustStore.load(paths)
    paths.trusted_hooks.parent.mkdir(parents=True, exist_ok=True)
    paths.trusted_hooks.write_text('["from another rift"]', encoding="utf-8")
    store.trust_hook_entry("mine")
    assert json.loads(paths.trusted_hooks.read_text()) == ["from another rift", "mine"]


def test_corrupt_or_wrong_shape_stores_warn_and_trust_nothing(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    paths.trusted_hooks.parent.mkdir(parents=True)
    paths.trusted_hooks.write_text("[1, 2", encoding="utf-8")
    paths.trusted_mcp.write_text('{"a": 1}', encoding="utf-8")
    store = TrustStore.load(paths)
    assert store.hooks == set() and store.mcp == set()
    assert len(store.warnings) == 2
    assert "corrupt" in store.warnings[0] and "not a JSON array" in store.warnings[1]


def test_plugin_key_changes_with_any_byte(tmp_path: Path) -> None:
    path = tmp_path / "plugin.json"
    assert plugin_trust_key(path, b"{}") != plugin_trust_key(path, b"{} ")
    assert plugin_trust_key(path, b"{}").endswith(str(path))

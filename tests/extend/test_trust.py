"""The trust store: two JSON arrays, written atomically; a corrupt one trusts nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

from rift.config.trust import TrustStore, hook_trust_key, mcp_trust_key, plugin_trust_key
from rift.fs.paths import Paths


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


def test_plugin_key_changes_with_any_byte_of_the_manifest_or_its_files(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    plugin = project / ".rift" / "plugins" / "demo"
    plugin.mkdir(parents=True)
    (plugin / "tool.sh").write_text("echo 1\n", encoding="utf-8")
    key = plugin_trust_key(project, plugin, b"{}")
    assert key != plugin_trust_key(project, plugin, b"{} ")
    assert key.endswith(f"{project}:.rift/plugins/demo")
    (plugin / "tool.sh").write_text("echo 2\n", encoding="utf-8")
    edited = plugin_trust_key(project, plugin, b"{}")
    assert edited != key
    (plugin / "sub").mkdir()
    (plugin / "sub" / "lib.sh").write_text("x", encoding="utf-8")
    assert plugin_trust_key(project, plugin, b"{}") != edited


def test_keys_name_the_projects_real_path(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "a")
    assert hook_trust_key(tmp_path / "a", "make") != hook_trust_key(tmp_path / "b", "make")
    assert hook_trust_key(tmp_path / "link", "make") == hook_trust_key(tmp_path / "a", "make")
    assert mcp_trust_key(tmp_path / "a", "[]") != mcp_trust_key(tmp_path / "b", "[]")


def test_plugin_key_never_hangs_on_special_files_or_walks_a_linked_disk(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    plugin = project / ".rift" / "plugins" / "demo"
    plugin.mkdir(parents=True)
    os.mkfifo(plugin / "fifo")
    (plugin / "zero").symlink_to("/dev/zero")
    (plugin / "root").symlink_to("/")
    key = plugin_trust_key(project, plugin, b"{}")  # returns: nothing is opened or walked
    (plugin / "root").unlink()
    (plugin / "root").symlink_to("/tmp")
    assert plugin_trust_key(project, plugin, b"{}") != key  # a re-pointed link counts

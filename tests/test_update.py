"""`rift update` says how this copy was installed and what updates it (issue 44, item 8).

Each detection reads a real install layout written into a temporary directory: a
`*.dist-info` folder with the files pip and uv write (METADATA, entry_points.txt,
INSTALLER, direct_url.json) and the marker files pipx and `uv tool` leave in the
environment's root. The last tests run the real CLI in a fake pipx environment: a
venv whose site-packages holds a copy of rift.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

import rift
from rift.update import Facts, detect, installed_distribution

ENTRY = "[console_scripts]\nrift = rift.cli:entry\n"


def dist_info(
    site: Path,
    name: str = "rift-agent",
    *,
    installer: str = "pip",
    direct: dict[str, Any] | None = None,
    entry: str = ENTRY,
) -> Path:
    """A dist-info folder as an installer writes it; its site-packages is returned."""
    folder = site / f"{name.replace('-', '_')}-9.9.dist-info"
    folder.mkdir(parents=True)
    (folder / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 9.9\n")
    (folder / "entry_points.txt").write_text(entry)
    (folder / "INSTALLER").write_text(installer + "\n")
    if direct is not None:
        (folder / "direct_url.json").write_text(json.dumps(direct))
    return site


def facts(site: Path, prefix: Path, base: Path | None = None, package: Path | None = None) -> Facts:
    return Facts(
        dist=installed_distribution([str(site)]),
        prefix=prefix,
        base_prefix=base or Path("/usr"),
        python=prefix / "bin" / "python",
        package_dir=package or site / "rift",
    )


def test_pypis_other_rift_is_not_taken_for_this_program(tmp_path: Path) -> None:
    """PyPI's `rift` (gravitational waves) declares no `rift = rift.cli:entry` script."""
    site = dist_info(tmp_path / "site", "rift", entry="")
    assert installed_distribution([str(site)]) is None


def test_the_new_name_is_found_before_the_old_one(tmp_path: Path) -> None:
    site = dist_info(dist_info(tmp_path / "site", "rift"), "rift-agent")
    found = installed_distribution([str(site)])
    assert found is not None and found.metadata["Name"] == "rift-agent"
    old_only = dist_info(tmp_path / "old", "rift")
    found = installed_distribution([str(old_only)])
    assert found is not None and found.metadata["Name"] == "rift"


def test_pipx_install_from_the_registry(tmp_path: Path) -> None:
    prefix = tmp_path / "pipx" / "venvs" / "rift-agent"
    site = dist_info(prefix / "lib" / "site-packages")
    (prefix / "pipx_metadata.json").write_text("{}")
    found = detect(facts(site, prefix))
    assert found.how == "pipx"
    assert found.commands == ("pipx upgrade rift-agent",)


def test_uv_tool_install_from_a_clone_pulls_then_reinstalls(tmp_path: Path) -> None:
    clone = tmp_path / "my clone"
    (clone / ".git").mkdir(parents=True)
    prefix = tmp_path / "uv" / "tools" / "rift-agent"
    direct = {"url": clone.as_uri(), "dir_info": {}}
    site = dist_info(prefix / "lib" / "site-packages", installer="uv", direct=direct)
    (prefix / "uv-receipt.toml").write_text("[tool]\n")
    found = detect(facts(site, prefix))
    assert found.how == "uv tool"
    assert found.commands == (
        f"git -C '{clone}' pull",
        f"uv tool install --force --reinstall '{clone}'",
    )


def test_uv_tool_install_from_the_registry(tmp_path: Path) -> None:
    prefix = tmp_path / "uv" / "tools" / "rift-agent"
    site = dist_info(prefix / "lib" / "site-packages", installer="uv")
    (prefix / "uv-receipt.toml").write_text("[tool]\n")
    assert detect(facts(site, prefix)).commands == ("uv tool upgrade rift-agent",)


def test_pip_in_a_venv_uses_that_venvs_python(tmp_path: Path) -> None:
    prefix = tmp_path / "venv"
    site = dist_info(prefix / "lib" / "site-packages")
    found = detect(facts(site, prefix))
    assert found.how == "venv"
    assert found.commands == (f"{prefix}/bin/python -m pip install --upgrade rift-agent",)


def test_uv_pip_in_a_venv_is_updated_with_uv(tmp_path: Path) -> None:
    prefix = tmp_path / "venv"
    site = dist_info(prefix / "lib" / "site-packages", installer="uv")
    found = detect(facts(site, prefix))
    assert found.commands == (f"uv pip install --python {prefix}/bin/python --upgrade rift-agent",)


def test_a_git_url_install_is_updated_from_the_same_url(tmp_path: Path) -> None:
    prefix = tmp_path / "venv"
    direct = {
        "url": "https://github.com/example/rift",
        "vcs_info": {"vcs": "git", "requested_revision": "main", "commit_id": "abc"},
    }
    site = dist_info(prefix / "lib" / "site-packages", direct=direct)
    found = detect(facts(site, prefix))
    assert found.commands == (
        f"{prefix}/bin/python -m pip install --upgrade git+https://github.com/example/rift@main",
    )


def test_an_editable_clone_is_updated_by_pulling(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    (clone / ".git").mkdir(parents=True)
    (clone / "pyproject.toml").write_text("[project]\n")
    (clone / "src" / "rift").mkdir(parents=True)
    prefix = clone / ".venv"
    direct = {"url": clone.as_uri(), "dir_info": {"editable": True}}
    site = dist_info(prefix / "lib" / "site-packages", direct=direct)
    found = detect(facts(site, prefix, package=clone / "src" / "rift"))
    assert found.how == "editable"
    assert found.commands == (
        f"git -C {clone} pull",
        f"{prefix}/bin/python -m pip install -e {clone}",
    )
    assert "imports rift from" not in found.note


def test_a_source_tree_on_the_path_is_not_an_install(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    (clone / ".git").mkdir(parents=True)
    (clone / "pyproject.toml").write_text("[project]\n")
    site = tmp_path / "empty-site"
    site.mkdir()
    found = detect(facts(site, tmp_path / "venv", package=clone / "src" / "rift"))
    assert found.how == "source"
    assert found.commands == (f"git -C {clone} pull",)


def test_a_run_from_another_tree_than_the_install_says_so(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    (clone / "pyproject.toml").parent.mkdir(parents=True)
    (clone / "pyproject.toml").write_text("[project]\n")
    prefix = tmp_path / "venv"
    site = dist_info(prefix / "lib" / "site-packages")
    found = detect(facts(site, prefix, package=clone / "src" / "rift"))
    assert found.how == "venv"
    assert f"imports rift from {clone / 'src' / 'rift'}" in found.note


# ------------------------------------------------------------------ the CLI


def fake_pipx_venv(root: Path) -> Path:
    """A pipx venv: pyvenv.cfg, bin/python, rift and msgspec (the dependency every rift
    module's records need) copied into its site-packages."""
    venv = root / "pipx" / "venvs" / "rift-agent"
    (venv / "bin").mkdir(parents=True)
    base = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    (venv / "pyvenv.cfg").write_text(
        f"home = {base.parent}\ninclude-system-site-packages = false\n"
    )
    (venv / "bin" / "python").symlink_to(base)
    (venv / "pipx_metadata.json").write_text("{}")
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = dist_info(venv / "lib" / version / "site-packages")
    shutil.copytree(
        Path(rift.__file__).parent, site / "rift", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copytree(
        Path(msgspec.__file__).parent,
        site / "msgspec",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return venv


def run_update(
    python: Path, *args: str, installed: bool = False
) -> subprocess.CompletedProcess[str]:
    """`rift update` run by `python`; `installed`: rift comes from its site-packages only."""
    env = {k: v for k, v in os.environ.items() if not installed or k != "PYTHONPATH"}
    return subprocess.run(
        [str(python), "-m", "rift", "update", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_rift_update_in_a_pipx_venv_prints_pipx_upgrade(tmp_path: Path) -> None:
    venv = fake_pipx_venv(tmp_path)
    done = run_update(venv / "bin" / "python", installed=True)
    assert done.returncode == 0, done.stderr
    assert f"pipx install (pipx venv {venv})" in done.stdout
    assert done.stdout.rstrip().endswith("to update it, run:\n  pipx upgrade rift-agent")
    assert "imports rift from" not in done.stdout


def test_rift_update_refuses_arguments_in_one_line(tmp_path: Path) -> None:
    done = run_update(Path(sys.executable), "--now")
    assert done.returncode == 2
    assert done.stderr.strip() == "rift update: unexpected argument '--now' (it takes none)"


@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_rift_update_help(flag: str) -> None:
    done = run_update(Path(sys.executable), flag)
    assert done.returncode == 0 and "nothing is run" in done.stdout

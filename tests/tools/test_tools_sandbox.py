"""The bubblewrap sandbox for bash: flags, wrapping, the startup choice and its fallbacks,
and the config rule that a project may turn it on but never off.

Confinement itself (writes, network, processes) is proven end to end in
tests/reliability/test_sandbox.py.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from tooldoubles import call

from rift.config.load import Config, load_config
from rift.tools.base import ToolContext
from rift.tools.bash import TOOL as BASH
from rift.tools.bash import wrap_command
from rift.tools.sandbox import Bubblewrap, choose_sandbox


def _fake_bwrap(bindir: Path, works: bool) -> None:
    """A stand-in `bwrap`: a working one skips its options (through `--chdir DIR`) and runs
    the command unconfined, enough to test the plumbing; a broken one fails like bwrap
    without user namespaces."""
    bindir.mkdir(parents=True, exist_ok=True)
    if works:
        body = 'while [ "$#" -gt 0 ]; do [ "$1" = --chdir ] && { shift 2; break; }; shift; done\n'
        body += 'exec "$@"\n'
    else:
        body = "echo 'bwrap: No permissions to creating new namespace' >&2; exit 1\n"
    script = bindir / "bwrap"
    script.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    script.chmod(0o755)


def test_flags_bind_only_the_project_and_cut_the_network(tmp_path: Path) -> None:
    argv = Bubblewrap("/usr/bin/bwrap", tmp_path).argv(tmp_path / "sub")
    joined = " ".join(argv)
    assert "--ro-bind / /" in joined and "--tmpfs /tmp" in joined
    assert f"--bind {tmp_path} {tmp_path}" in joined
    assert "--unshare-net" in argv and "--unshare-pid" in argv and "--die-with-parent" in argv
    assert argv[-2:] == ["--chdir", str(tmp_path / "sub")]
    assert "--unshare-net" not in Bubblewrap("bwrap", tmp_path, network=True).argv(tmp_path)


def test_wrap_keeps_the_command_one_word(tmp_path: Path) -> None:
    command = "echo 'it''s' \"$HOME\"; ls | wc -l"
    wrapped = Bubblewrap("bwrap", tmp_path).wrap(command, tmp_path)
    words = shlex.split(wrapped)
    assert words[0] == "exec" and words[-3:] == ["sh", "-c", command]


def test_no_sandbox_configured_means_none_and_no_warning(tmp_path: Path) -> None:
    assert choose_sandbox(None, network=False, project=tmp_path, has_wrapper=False) == (None, None)


def test_unknown_sandbox_warns_and_names_the_fallback(tmp_path: Path) -> None:
    sandbox, warning = choose_sandbox("jail", network=False, project=tmp_path, has_wrapper=True)
    assert sandbox is None
    assert warning is not None and "unknown permissions.sandbox 'jail'" in warning
    assert "bash_wrapper" in warning


def test_missing_bwrap_warns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    sandbox, warning = choose_sandbox("bwrap", network=False, project=tmp_path, has_wrapper=False)
    assert sandbox is None
    assert warning is not None and "not installed" in warning and "unsandboxed" in warning


def test_bwrap_without_namespaces_warns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_bwrap(tmp_path / "bin", works=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    sandbox, warning = choose_sandbox("bwrap", network=False, project=tmp_path, has_wrapper=False)
    assert sandbox is None
    assert warning is not None and "cannot create its namespaces" in warning
    assert "No permissions to creating new namespace" in warning


def test_bash_runs_through_the_sandbox(
    ctx: ToolContext, proj: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_bwrap(tmp_path / "bin", works=True)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    sandbox, warning = choose_sandbox("bwrap", network=False, project=proj, has_wrapper=False)
    assert warning is None and sandbox is not None
    ctx.sandbox = sandbox
    ctx.bash_wrapper = "false {cmd}"  # the sandbox wins over the template
    assert wrap_command("echo hi", ctx).startswith("exec " + str(tmp_path / "bin" / "bwrap"))
    out = call(BASH, ctx, command="echo sandboxed")
    assert out.ok and out.text.strip() == "sandboxed"


def test_a_project_may_turn_the_sandbox_on_but_not_off(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "proj"
    (home / ".config" / "rift").mkdir(parents=True)
    cwd.mkdir()
    env = {"HOME": str(home)}
    user = home / ".config" / "rift" / "config.json"

    def load(user_perms: dict[str, object], project_perms: dict[str, object]) -> Config:
        user.write_text(json.dumps({"permissions": user_perms}), encoding="utf-8")
        (cwd / ".rift.json").write_text(json.dumps({"permissions": project_perms}))
        return load_config(env, cwd)

    on = load({}, {"sandbox": "bwrap", "sandbox_network": False})
    assert on.permissions.sandbox == "bwrap" and not on.warnings
    off = load({"sandbox": "bwrap", "sandbox_network": True}, {"sandbox": "none"})
    assert off.permissions.sandbox == "bwrap"
    assert off.permissions.sandbox_network is True
    assert "permissions.sandbox" in "\n".join(off.warnings)
    net = load({"sandbox": "bwrap"}, {"sandbox_network": True})
    assert net.permissions.sandbox_network is False
    assert "sandbox_network" in "\n".join(net.warnings)
    tight = load({"sandbox": "bwrap", "sandbox_network": True}, {"sandbox_network": False})
    assert tight.permissions.sandbox_network is False

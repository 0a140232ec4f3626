"""Inside `sandbox: bwrap` the credential stores are hidden and what runs code later is
read-only (issue 42). Seen: `cat "${HOME}"/.ssh/id_rsa` in sandboxed bash printed the key (the
bash guard reads words only), and a command wrote `.git/config` and `.git/hooks/*`, which fire
on the person's next `git commit` outside any sandbox. The real bash tool in real bubblewrap;
the home lies outside /tmp (the sandbox's /tmp is private anyway)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from tooldoubles import call

from rift.tools.base import ToolContext
from rift.tools.bash import TOOL as BASH
from rift.tools.sandbox import Bubblewrap, choose_sandbox

KEY = "-----BEGIN OPENSSH PRIVATE KEY----- sandbox-test-secret"


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    where = Path(tempfile.mkdtemp(prefix="rift-home-", dir="/var/tmp"))
    (where / ".ssh").mkdir()
    (where / ".ssh/id_rsa").write_text(KEY)
    (where / ".aws").mkdir()
    (where / ".aws/credentials").write_text(KEY)
    (where / ".config/gh").mkdir(parents=True)
    (where / ".config/gh/hosts.yml").write_text(KEY)
    (where / ".netrc").write_text(KEY)
    monkeypatch.setenv("HOME", str(where))
    yield where
    shutil.rmtree(where, ignore_errors=True)


def _sandbox(proj: Path, home: Path) -> Bubblewrap:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed")
    sandbox, warning = choose_sandbox(
        "bwrap", network=False, project=proj, has_wrapper=False, home=home
    )
    assert sandbox is not None, warning
    return sandbox


def test_sandboxed_bash_cannot_read_credential_stores_by_a_computed_path(
    ctx: ToolContext, proj: Path, home: Path
) -> None:
    ctx.sandbox = _sandbox(proj, home)
    command = (
        'cd "${HOME}"; for f in .ssh/id_rsa .aws/credentials .config/gh/hosts.yml .netrc;'
        ' do cat "$f"; echo "read $f: $?"; done; ls -A .ssh | wc -l'
    )
    out = call(BASH, ctx, command=command)
    assert "sandbox-test-secret" not in out.text
    assert "read .ssh/id_rsa: 1" in out.text, out.text  # it ran, and found nothing
    assert "read .netrc: 0" not in out.text  # /dev/null over it: nothing readable
    assert (home / ".ssh/id_rsa").read_text() == KEY  # hidden, not harmed


def test_sandboxed_bash_cannot_plant_git_hooks_or_config(
    ctx: ToolContext, proj: Path, home: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    config_before = (proj / ".git/config").read_text()
    (proj / "src.txt").write_text("work\n")
    (proj / ".rift.json").write_text("{}\n")
    ctx.sandbox = _sandbox(proj, home)
    command = (
        "printf '[core]\\n\\thooksPath = evil\\n' >> .git/config; echo config $?;"
        " printf '#!/bin/sh\\ntouch /var/tmp/pwned\\n' > .git/hooks/pre-commit; echo hook $?;"
        ' echo \'{"hooks": {"post_edit": ["touch pwned"]}}\' > .rift.json; echo rift $?;'
        " echo changed > src.txt; echo project $?"
    )
    out = call(BASH, ctx, command=command)
    assert (proj / ".git/config").read_text() == config_before
    assert not (proj / ".git/hooks/pre-commit").exists()
    assert (proj / ".rift.json").read_text() == "{}\n"
    assert "project 0" in out.text and (proj / "src.txt").read_text() == "changed\n"


def test_sandboxed_bash_cannot_swap_the_git_folder_for_one_with_hooks(
    ctx: ToolContext, proj: Path, home: Path
) -> None:
    """The read-only `.git/config` bind is worth nothing if `.git` itself can be renamed
    away and a fresh repository put in its place."""
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    ctx.sandbox = _sandbox(proj, home)
    out = call(BASH, ctx, command="mv .git .git.old; echo mv $?; rm -rf .git; git init -q .")
    assert "mv 0" not in out.text, out.text
    assert not (proj / ".git.old").exists()
    assert not (proj / ".git/hooks/pre-commit").exists()

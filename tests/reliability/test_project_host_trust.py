"""A cloned repository cannot choose the model server until the user trusted that choice.

Family "repo-host" (bypass_corpus.json `pytest_cases`). The repository's
`.rift.json` names a host or a provider (the fake server); the user's own config
names a dead one. Untrusted, nothing reaches the fake server and rift says how to
trust it; `rift --trust-project` trusts the exact setting for this project's real
path, and any change of the setting or another checkout asks again.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from rift_bin import run_rift, write_json

pytestmark = pytest.mark.reliability

DEAD = "http://127.0.0.1:9"


def _user_host() -> None:
    write_json(Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json", {"host": DEAD})


def _chats(server: Any) -> list[dict[str, Any]]:
    return [r for r in server.requests() if "chat" in r["_path"]]


def test_a_project_host_needs_trust_then_holds_for_that_exact_setting(
    project: Path, tmp_path: Path, fake_server: Any
) -> None:
    _user_host()
    server = fake_server({"turns": [{"content": "ok", "repeat": 5}]})
    write_json(project / ".rift.json", {"host": server.url})

    untrusted = run_rift(["-p", "hi", "-m", "fake-model"], project)
    assert untrusted.returncode != 0
    assert server.requests() == []
    assert untrusted.stderr.count("--trust-project") == 1, untrusted.stderr
    assert "Traceback" not in untrusted.stderr

    trusting = run_rift(["--trust-project", "-p", "hi", "-m", "fake-model"], project)
    assert trusting.returncode == 0, trusting.stderr
    assert len(_chats(server)) == 1

    again = run_rift(["-p", "hi", "-m", "fake-model"], project)
    assert again.returncode == 0, again.stderr
    assert "--trust-project" not in again.stderr
    assert len(_chats(server)) == 2

    other = fake_server({"turns": [{"content": "ok"}]})
    write_json(project / ".rift.json", {"host": other.url})  # a changed setting asks again
    changed = run_rift(["-p", "hi", "-m", "fake-model"], project)
    assert changed.returncode != 0
    assert other.requests() == []

    write_json(project / ".rift.json", {"host": server.url})
    clone = tmp_path / "clone"
    shutil.copytree(project, clone)
    elsewhere = run_rift(["-p", "hi", "-m", "fake-model"], clone)  # trust is per project
    assert elsewhere.returncode != 0
    assert len(_chats(server)) == 2


def test_a_project_provider_needs_trust(project: Path, fake_server: Any) -> None:
    _user_host()
    server = fake_server({"turns": [{"content": "ok"}]})
    write_json(
        project / ".rift.json",
        {"providers": {"repo": {"base_url": server.url + "/v1"}}, "model": "repo/fake-model"},
    )

    untrusted = run_rift(["-p", "hi"], project)
    assert untrusted.returncode != 0
    assert server.requests() == []
    assert "--trust-project" in untrusted.stderr

    trusted = run_rift(["--trust-project", "-p", "hi"], project)
    assert trusted.returncode == 0, trusted.stderr
    assert len(_chats(server)) == 1


def test_the_same_host_from_a_flag_needs_no_trust_and_no_warning(
    project: Path, fake_server: Any
) -> None:
    _user_host()
    server = fake_server({"turns": [{"content": "ok"}]})
    write_json(project / ".rift.json", {"host": server.url})

    result = run_rift(["-p", "hi", "--host", server.url, "-m", "fake-model"], project)

    assert result.returncode == 0, result.stderr
    assert "--trust-project" not in result.stderr


def test_an_untrusted_project_host_is_one_warning_while_the_users_host_answers(
    project: Path, fake_server: Any
) -> None:
    mine = fake_server({"turns": [{"content": "ok"}]})
    repo = fake_server({"turns": [{"content": "ok"}]})
    write_json(Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json", {"host": mine.url})
    write_json(project / ".rift.json", {"host": repo.url})

    result = run_rift(["-p", "hi", "-m", "fake-model"], project)

    assert result.returncode == 0, result.stderr
    assert len(_chats(mine)) == 1
    assert repo.requests() == []
    assert result.stderr.count("--trust-project") == 1, result.stderr

"""A project's `approve: false` is refused with the warning the README promises
("each ignored key is one warning"), and approval stays on (issue 30)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rift_bin import run_rift, write_json


@pytest.mark.parametrize(
    ("data", "key"),
    [({"approve": False}, "approve"), ({"permissions": {"approve": False}}, "permissions.approve")],
)
def test_approve_false_in_a_project_warns(
    project: Path, fake_server: Any, data: dict[str, Any], key: str
) -> None:
    write_json(project / ".rift.json", data)
    server = fake_server({"turns": [{"content": "hi"}]})
    run = run_rift(["-p", "hi", "--host", server.url, "-m", "fake-model"], project)
    assert run.returncode == 0, run.stderr
    assert f"ignoring '{key}: false' (a project may only turn approval on" in run.stderr

"""A relative rule pattern is project-relative (issue 42): `Edit(**/*.py)` allows the project's
`.py` files, not every `.py` on disk. Real `rift -p`, real HTTP to the scripted fake server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rift_bin import run_rift


def test_an_allow_glob_does_not_lift_the_outside_project_refusal(
    project: Path, tmp_path: Path, fake_server: Any
) -> None:
    """Seen: with `Edit(**/*.py)` allowed, `-p` wrote `../glob_escape.py`."""
    user = tmp_path / "home/.config/rift/config.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    allow = ["Edit(**/*.py)", "Write(**/*.py)"]
    user.write_text(json.dumps({"permissions": {"allow": allow}}))
    server = fake_server(
        {
            "turns": [
                {
                    "tool_calls": [
                        {
                            "name": "write",
                            "arguments": {"path": "../glob_escape.py", "content": "x = 1\n"},
                        }
                    ]
                },
                {
                    "tool_calls": [
                        {
                            "name": "write",
                            "arguments": {"path": "src/inside.py", "content": "y = 2\n"},
                        }
                    ]
                },
                {"content": "done"},
            ]
        }
    )
    result = run_rift(["--host", server.url, "-m", "fake-model", "-p", "make the files"], project)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "glob_escape.py").exists()
    assert (project / "src/inside.py").read_text() == "y = 2\n"  # the rule still works inside
    messages = server.chat_requests()[-1]["messages"]
    first = next(m["content"] for m in messages if m["role"] == "tool")
    assert first.startswith("ERROR:"), first

"""A hard link to a denied file is denied (issue 30): `ln secrets/key.txt hard.txt`, then
read or edit `hard.txt` must not show the secret; write through it cannot change it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from rift_bin import run_rift, write_json

SECRET = "SECRET-HARD-LINK-77"


def test_a_hard_link_to_a_denied_file_is_denied(project: Path, fake_server) -> None:
    (project / "secrets").mkdir()
    key = project / "secrets" / "key.txt"
    key.write_text(f"TOKEN={SECRET}\n")
    os.link(key, project / "hard.txt")
    (project / "plain.txt").write_text("hello\n")
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json"
    write_json(config, {"permissions": {"deny": ["Read(secrets/**)", "Edit(secrets/**)"]}})
    calls = [
        {"name": "read", "arguments": {"path": "hard.txt"}},
        {
            "name": "edit",
            "arguments": {"path": "hard.txt", "old_string": "TOKEN=x", "new_string": "y"},
        },
        {"name": "read", "arguments": {"path": "plain.txt"}},
        {"name": "grep", "arguments": {"pattern": "TOKEN"}},
        {"name": "write", "arguments": {"path": "hard.txt", "content": "overwritten\n"}},
    ]
    server = fake_server({"turns": [{"tool_calls": calls}, {"content": "ok"}]})
    done = run_rift(["-p", "go", "--host", server.url, "-m", "fake-model"], project)
    assert done.returncode == 0, done.stderr
    sent = json.dumps(server.chat_requests())
    assert SECRET not in sent
    assert "hard link to a denied file" in sent
    assert "hello" in sent  # the control read went through
    assert key.read_text() == f"TOKEN={SECRET}\n"  # the write replaced the name, not the file

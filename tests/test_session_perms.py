"""Session files hold everything the model read: 0600 in a 0700 folder, and an
older rift's 0755 folder or 0644 file is tightened the next time rift writes there."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from rift_bin import sessions_dir

from rift.core.sessions.store import SessionStore, save_session


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_session_file_is_0600_in_a_0700_folder(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        folder = tmp_path / "data" / "sessions"
        path = SessionStore(folder).reserve()
        save_session(path, model="m", cwd=tmp_path, messages=[{"role": "user", "content": "hi"}])
    finally:
        os.umask(old)
    assert mode(path) == 0o600
    assert mode(folder) == 0o700


def test_an_old_world_readable_session_folder_and_file_are_tightened(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    path = folder / "1.json"
    path.write_text("{}")
    path.chmod(0o644)
    save_session(path, model="m", cwd=tmp_path, messages=[{"role": "user", "content": "hi"}])
    assert mode(path) == 0o600
    assert mode(folder) == 0o700


def test_rift_print_run_saves_its_session_private(tmp_path: Path, fake_server: Any) -> None:
    server = fake_server({"turns": [{"content": "hi"}]})
    done = subprocess.run(
        [sys.executable, "-m", "rift", "-p", "say hi", "--host", server.url, "-m", "fake-model"],
        cwd=tmp_path,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    folder = sessions_dir()
    files = list(folder.glob("*.json"))
    assert files and all(mode(f) == 0o600 for f in files)
    assert mode(folder) == 0o700

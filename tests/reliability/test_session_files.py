"""Malformed session files never crash `--continue`, `--resume` or serve's `list_sessions`.

Family "session-file" (bypass_corpus.json `pytest_cases`). Each file is set
aside with one warning and rift starts fresh; later runs are unaffected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rift_bin import run_rift, sessions_dir
from serve_driver import ServeProcess

pytestmark = pytest.mark.reliability

DEPTH = 200_000
MALFORMED = {
    "deep-array": b'{"messages": ' + b"[" * DEPTH + b"]" * DEPTH + b"}",
    "deep-object": b'{"messages": [{"role": "user", "content": '
    + b'{"a": ' * DEPTH
    + b"1"
    + b"}" * DEPTH
    + b"}]}",
    "nan": b'{"saved_at": NaN, "messages": [{"role": "user", "content": "hi"}]}',
    "infinity": b'{"saved_at": Infinity, "messages": [{"role": "user", "content": "hi"}]}',
    "huge-number": b'{"saved_at": 1e999, "messages": [{"role": "user", "content": "hi"}]}',
    "nan-in-message": b'{"messages": [{"role": "user", "content": "hi", "x": NaN}]}',
}


def _plant(name: str) -> Path:
    folder = sessions_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_bytes(MALFORMED[name])
    return path


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_continue_and_resume_set_a_malformed_file_aside(
    name: str, project: Path, fake_server: Any
) -> None:
    server = fake_server({"turns": [{"content": "fresh", "repeat": 3}]})
    base = ["-p", "hi", "--host", server.url, "-m", "fake-model"]
    path = _plant(name)

    first = run_rift([*base, "--continue"], project)
    assert first.returncode == 0, first.stderr[-2000:]
    assert "Traceback" not in first.stderr
    assert first.stderr.count("is unreadable") == 1, first.stderr  # one warning
    assert str(path) in first.stderr
    assert path.with_name(path.name + ".corrupt").read_bytes() == MALFORMED[name]  # kept aside

    second = run_rift([*base, "--continue"], project)  # every later --continue works too
    assert second.returncode == 0, second.stderr[-2000:]
    assert str(path) not in second.stderr

    path = _plant(name)
    resumed = run_rift([*base, "--resume", str(path)], project)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "Traceback" not in resumed.stderr
    assert resumed.stderr.count("is unreadable") == 1, resumed.stderr


def test_list_sessions_survives_every_malformed_file(project: Path, fake_server: Any) -> None:
    for name in MALFORMED:
        _plant(name)
    server = fake_server({"turns": []})
    serve = ServeProcess(project, "--host", server.url, "-m", "fake-model")
    try:
        serve.until("ready")
        serve.send({"cmd": "list_sessions"})
        listed = serve.until("sessions")
        assert all(isinstance(item["saved_at"], int) for item in listed["items"])
        serve.send({"cmd": "list_sessions"})  # and again: the process is still alive
        serve.until("sessions")
        assert serve.close() == 0
    finally:
        if serve.proc.poll() is None:
            serve.proc.kill()

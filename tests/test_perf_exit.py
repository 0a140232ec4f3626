"""`rift -p` and `rift --serve` end with a fast exit that still flushes and saves.

The interpreter's teardown after the last reply (module cleanup, a final garbage
collection over everything imported) is skipped with `os._exit` in the console
entry point. A `sitecustomize` registers an atexit hook that writes a marker: it
must not run (the teardown really was skipped), while everything rift printed
to a pipe must arrive and the session must be on disk.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fakes.fake_server import FakeModelServer

MARKER = "teardown-ran"
SITECUSTOMIZE = f"import atexit, sys\natexit.register(lambda: sys.stderr.write({MARKER!r}))\n"


def _env(tmp_path: Path) -> dict[str, str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH")) if p)
    return env


def _sessions() -> list[Path]:
    return sorted((Path(os.environ["XDG_DATA_HOME"]) / "rift" / "sessions").rglob("*.json"))


def test_headless_run_flushes_output_saves_session_and_skips_teardown(tmp_path: Path) -> None:
    script = {"turns": [{"content": "all done " * 2000}]}  # more than a pipe buffer's worth
    with FakeModelServer(script) as fake:
        out = subprocess.run(
            [sys.executable, "-m", "rift", "-p", "hi", "--host", fake.url, "--model",
             "fake-model", "--output-format", "json"],
            cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["reply"] == "all done " * 2000
    saved = json.loads(Path(result["session"]).read_text(encoding="utf-8"))
    assert "all done" in json.dumps(saved["messages"][-1])
    assert MARKER not in out.stderr


def test_serve_exit_flushes_events_saves_session_and_skips_teardown(tmp_path: Path) -> None:
    with FakeModelServer({"turns": [{"content": "served reply"}]}) as fake:
        commands = json.dumps({"cmd": "prompt", "text": "hi"}) + "\n"
        proc = subprocess.Popen(
            [sys.executable, "-m", "rift", "--serve", "--host", fake.url, "--model", "fake-model"],
            cwd=tmp_path, env=_env(tmp_path), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stdin.write(commands)
        proc.stdin.flush()
        for line in proc.stdout:
            if json.loads(line)["event"] == "done":
                break
        proc.stdin.close()  # end of input: serve saves and exits
        rest, err = proc.stdout.read(), proc.stderr.read()
        proc.wait(timeout=60)
    assert proc.returncode == 0, err
    assert all(json.loads(line) for line in rest.splitlines())  # whole lines only
    assert any("served reply" in p.read_text(encoding="utf-8") for p in _sessions())
    assert MARKER not in err


def test_main_called_in_process_returns_instead_of_exiting() -> None:
    """Library callers (tests, embedders) get a status back: only `entry` exits."""
    code = subprocess.run(
        [sys.executable, "-c",
         "import contextlib, io\nfrom rift.cli import main\n"
         "with contextlib.redirect_stdout(io.StringIO()):\n    code = main(['--version'])\n"
         "print('returned', code)"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert code.stdout.strip() == "returned 0"

"""The rename from issue 29 with the real embedded model: both sites renamed.

`rift -m embedded -p "Rename the function f to double in util.py, including its
call."` on a 5-line file once renamed the `def`, left the call `f(21)` and exited
0 "answered". Run as a user would, it must now leave a util.py whose def and
call both say `double` and that still runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.embedded

UTIL = """\
def f(x):
    return 2 * x


print(f(21))
"""


@pytest.mark.timeout(540)
def test_rename_changes_the_def_and_its_call(embedded_model: Any, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "util.py").write_text(UTIL)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env = {**os.environ, "XDG_CACHE_HOME": str(embedded_model.xdg_cache_home)}
    prompt = "Rename the function f to double in util.py, including its call."
    started = time.monotonic()
    args = ["-m", "embedded", "--temp", "0", "--output-format", "json", "-p", prompt]
    run = subprocess.run(
        [sys.executable, "-m", "rift", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=500,
        env=env,
    )
    wall = time.monotonic() - started
    assert run.returncode == 0, run.stderr
    stats = json.loads(run.stdout)["stats"]
    print(f"\n[embedded] rename: {wall:.1f} s wall, {stats['iterations']} model requests")
    text = (repo / "util.py").read_text()
    assert "def double(x):" in text and "double(21)" in text, (text, run.stderr)
    assert "f(" not in text.replace("def double(", ""), text
    out = subprocess.run([sys.executable, "util.py"], cwd=repo, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "42", (out.stderr, text)

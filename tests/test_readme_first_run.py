"""The README's first command works as typed in a fresh clone (issue 29).

It once named a stats.py that no clone has, and the embedded model, looking
for it, spent minutes editing rift's own build output. The command must `cd`
into a folder the repository ships, and the file its prompt names must be
there, still holding the bug the prompt describes.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def first_command() -> str:
    """The first line of the README's first bash block (the install-and-run line)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", readme, re.DOTALL)
    assert block is not None, "README has no bash block"
    return block.group(1).strip().splitlines()[0]


def test_first_command_runs_in_a_folder_the_repo_ships() -> None:
    words = shlex.split(first_command())
    assert "cd" in words, "the first command must cd into the example's folder"
    folder = REPO / words[words.index("cd") + 1]
    assert folder.is_dir(), f"{folder} is not in the repository"
    prompt = words[words.index("-p") + 1]
    named = [w for w in re.findall(r"[\w./-]+\.py", prompt)]
    assert named, "the prompt names no file"
    for name in named:
        assert (folder / name).is_file(), f"{name} is not in {folder}"
    tracked = subprocess.run(
        ["git", "ls-files", "--error-unmatch", str(folder / named[0])],
        cwd=REPO,
        capture_output=True,
    )
    assert tracked.returncode == 0, f"{named[0]} is not tracked by git (a clone would lack it)"


def test_the_example_still_has_the_bug_the_prompt_describes() -> None:
    folder = REPO / "examples" / "first-run"
    probe = "import stats; print(stats.max_of([3, 9, 1]))"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=folder, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "1", "examples/first-run/stats.py should return the smallest"

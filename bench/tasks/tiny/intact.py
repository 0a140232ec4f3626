"""Nothing but the task's file changed, and every file still parses.

    python3 intact.py TARGET     # run in the task's repository (verify.sh does)

A task passes only if the model did what was asked *without collateral
damage*: no other file modified, created or deleted (git status against the
fixture's commit), and every Python, JSON and TOML file in the repository
parses. Exits non-zero with one line per problem.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

IGNORED = ("__pycache__/", ".rift")


def changed_paths() -> list[str]:
    out = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line[3:] for line in out.splitlines() if not any(i in line for i in IGNORED)]


def parse_error(path: Path) -> str | None:
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        if path.suffix == ".py":
            compile(text, str(path), "exec", dont_inherit=True)
        elif path.suffix == ".json":
            json.loads(text)
        elif path.suffix == ".toml":
            tomllib.loads(text)
    except (SyntaxError, ValueError) as exc:
        return f"{path} does not parse: {exc}"
    return None


def main(target: str) -> int:
    problems = [f"{p} changed, but the task is about {target}" for p in changed_paths()]
    problems = [p for p in problems if not p.startswith(f"{target} changed")]
    for path in sorted(Path(".").rglob("*")):
        if path.is_file() and ".git" not in path.parts and "__pycache__" not in path.parts:
            error = parse_error(path)
            if error:
                problems.append(error)
    for problem in problems:
        print(f"damaged: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))

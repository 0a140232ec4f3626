"""The tests judge: run the project's own tests in every candidate's worktree.

The command is `--test-cmd` or found from the project's files. It runs as the bash tool
runs a command, inside the same sandbox when one is configured: the tests are code a
model just wrote. The winner is the best of `rank`, only if it changed something and its
tests pass.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import time
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from rift.checks.discover import has_python_tests, npm_test, python_configured, python_for
from rift.checks.results import count_tests
from rift.config.load import Config
from rift.swarm.candidates import CandidateResult
from rift.tools._proc import run_shell, strip_ansi
from rift.tools.sandbox import choose_sandbox

TEST_TIMEOUT_S = 600.0


class SuiteRun(Struct, frozen=True):
    """One candidate's test run."""

    command: str
    exit_code: int | None
    """None when it timed out."""
    passed: int
    failed: int
    seconds: float
    tail: str
    """The last lines of its output, for the chat judge and the person."""

    @property
    def green(self) -> bool:
        return self.exit_code == 0

    def describe(self) -> str:
        if self.exit_code is None:
            return f"timed out ({self.passed} passed)"
        verdict = "pass" if self.green else "FAIL"
        total = self.passed + self.failed
        return f"{verdict} {self.passed}/{total}" if total else f"{verdict} (exit {self.exit_code})"


def detect_command(cwd: Path, root: Path) -> str | None:
    """The project's test command, or None when nothing says how it is tested. `root` is the
    person's own checkout: its `.venv`/`venv` (never committed, so absent from worktrees) is where a
    Python project's pytest usually lives."""
    if python_configured(cwd):
        return _pytest(root)
    if (cwd / "Cargo.toml").is_file():
        return "cargo test"
    if (cwd / "go.mod").is_file():
        return "go test ./..."
    if npm_test(cwd / "package.json"):
        return "npm test"
    if has_python_tests(cwd):
        return _pytest(root)
    return None


_INTERPRETER = re.compile(
    r"(python|pypy|py|node|nodejs|deno|bun|bash|sh|dash|zsh|ksh|fish|ruby|irb|perl|php|lua"
    r"|luajit|julia|R|Rscript|ghci|tclsh|osascript|pwsh)[\d.]*"
)
"""An interpreter's name, versioned or not (`python3.12`, `lua5.4`)."""


def bare_interpreter(command: str) -> bool:
    """Whether `command` starts an interpreter with nothing to run (`python3`, `env node`,
    `bash -l`): it reads the empty stdin the judge gives it and exits 0, a false green
    (issue 44: an unquoted `--test-cmd python3 check_calc.py` kept only `python3`)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    while words and (("=" in words[0] and not words[0].startswith("=")) or words[0] == "env"):
        words = words[1:]  # `env`, `VAR=value` before the program
    if not words or not _INTERPRETER.fullmatch(Path(words[0]).name):
        return False
    return all(word.startswith("-") for word in words[1:])


def _pytest(root: Path) -> str:
    python = python_for(root)
    if python == "python3" and shutil.which("pytest"):
        return "pytest -q -p no:cacheprovider"
    return f"{python} -m pytest -q -p no:cacheprovider"


async def run_tests(command: str, cwd: Path, config: Config) -> tuple[SuiteRun, str | None]:
    """Run `command` in `cwd` (sandboxed as bash would be); the run, and a warning when
    the configured sandbox could not be used."""
    wrapped, problem = _wrapped(command, cwd, config)
    started = time.monotonic()
    try:
        shell = await run_shell(wrapped, cwd, TEST_TIMEOUT_S, env=dict(os.environ))
    except OSError as exc:
        return SuiteRun(command, 127, 0, 0, 0.0, f"cannot run the tests: {exc}"), problem
    output = strip_ansi(shell.stdout + "\n" + shell.stderr)
    passed, failed = count_tests(output)
    tail = "\n".join(output.strip().splitlines()[-15:])
    seconds = time.monotonic() - started
    return SuiteRun(command, shell.exit_code, passed, failed, seconds, tail), problem


def _wrapped(command: str, cwd: Path, config: Config) -> tuple[str, str | None]:
    perms = config.permissions
    box, problem = choose_sandbox(
        perms.sandbox,
        network=perms.sandbox_network,
        project=cwd,
        has_wrapper=bool(perms.bash_wrapper),
        protected=(config.paths.config_dir, config.paths.data_dir),
    )
    if box is not None:
        return box.wrap(command, cwd), problem
    if perms.bash_wrapper:
        from rift.tools.bash import shell_quote

        values = {"cmd": shell_quote(command), "cwd": str(cwd)}
        return re.sub(r"\{(cmd|cwd)\}", lambda m: values[m.group(1)], perms.bash_wrapper), problem
    return command, problem


def rank(results: Sequence[CandidateResult]) -> list[CandidateResult]:
    """Best first: has a patch, tests green, more passed, smaller patch."""

    def key(result: CandidateResult) -> tuple[bool, bool, int, int]:
        tests: SuiteRun | None = result.tests
        green = tests is not None and tests.green
        passed = tests.passed if tests is not None else 0
        return (result.patch_bytes > 0, green, passed, -result.patch_bytes)

    return sorted(results, key=key, reverse=True)


def best_by_tests(results: Sequence[CandidateResult]) -> CandidateResult | None:
    """The top of `rank` when it changed something and its tests pass."""
    ranked = rank(results)
    if not ranked:
        return None
    best = ranked[0]
    tests: SuiteRun | None = best.tests
    return best if best.patch_bytes > 0 and tests is not None and tests.green else None

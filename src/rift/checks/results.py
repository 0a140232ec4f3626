"""What a test run said: how many passed and failed, which failed, and the part worth
reading again.

A small model's context holds a few thousand tokens, far less than twenty failing
tests print, so the feedback keeps the summary, the failing tests' names and the
first failures' own sections, cut to a budget.
"""

from __future__ import annotations

import re

from msgspec import Struct

FEEDBACK_CHARS = 2_400
"""Characters of test output fed back to the model per round."""
FAILURE_SECTIONS = 3
"""Failing tests whose own sections (assertion, values) are kept whole."""

_PYTEST_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+?)(?: - (.*))?$", re.MULTILINE)
_UNITTEST_FAILED = re.compile(r"^(?:FAIL|ERROR): (\S+) \(([\w.]+)\)", re.MULTILINE)
_CARGO_FAILED = re.compile(r"^test (\S+) \.\.\. FAILED$", re.MULTILINE)
_GO_FAILED = re.compile(r"^--- FAIL: (\S+)", re.MULTILINE)
_SECTION = re.compile(r"^(?:_{3,} .+ _{3,}|={20,}\n(?:FAIL|ERROR): .+)$", re.MULTILINE)


class CheckResult(Struct, frozen=True):
    """One run of the project's checks."""

    command: str
    exit_code: int | None
    """None when it timed out or could not start."""
    passed: int
    failed: int
    failing: tuple[str, ...] = ()
    """The failing tests' names, as the runner spelled them."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    def score(self) -> tuple[bool, int, int]:
        """Bigger is better: green first, then more passed, then fewer failed."""
        return (self.ok, self.passed, -self.failed)

    def describe(self) -> str:
        if self.ok:
            return f"{self.passed} passed" if self.passed else "passed"
        if self.exit_code is None:
            return "did not finish"
        if not self.passed and not self.failed:
            return f"failed (exit {self.exit_code})"
        return f"{self.failed} failed, {self.passed} passed"

    def as_json(self) -> dict[str, object]:
        """The `checks` object of `-p --output-format json` and the `done` event."""
        return {
            "command": self.command,
            "passed": self.passed,
            "failed": self.failed,
            "failing": list(self.failing),
            "ok": self.ok,
        }


def count_tests(output: str) -> tuple[int, int]:
    """(passed, failed) from a runner's summary lines; (0, 0) when it printed none."""
    ran = re.search(r"^Ran (\d+) tests? in ", output, re.MULTILINE)
    if ran:  # unittest: "Ran 12 tests", then "OK" or "FAILED (failures=2, errors=1)"
        total = int(ran.group(1))
        bad = sum(int(n) for n in re.findall(r"(?:failures|errors)=(\d+)", output))
        return total - bad, bad
    go_ok = len(re.findall(r"^ok\s+\S+", output, re.MULTILINE))
    go_fail = len(re.findall(r"^(?:FAIL|--- FAIL)\s+\S+", output, re.MULTILINE))
    jest = re.findall(r"^Tests:\s+(.*)$", output, re.MULTILINE)
    text = "\n".join(jest) if jest else output
    passed = sum(int(n) for n in re.findall(r"(\d+) (?:passed|passing)\b", text))
    failed = sum(int(n) for n in re.findall(r"(\d+) (?:failed|failing|errors?)\b", text))
    if not passed and not failed and (go_ok or go_fail):
        return go_ok, go_fail
    return passed, failed


def failing_tests(output: str) -> tuple[str, ...]:
    """The failing tests' names, in the order the runner listed them."""
    names = [m.group(1) for m in _PYTEST_FAILED.finditer(output)]
    names += [f"{m.group(2)}.{m.group(1)}" for m in _UNITTEST_FAILED.finditer(output)]
    names += [m.group(1) for m in _CARGO_FAILED.finditer(output)]
    names += [m.group(1) for m in _GO_FAILED.finditer(output)]
    return tuple(dict.fromkeys(names))


def read_run(command: str, exit_code: int | None, output: str) -> CheckResult:
    """A `CheckResult` from a finished run's combined output."""
    passed, failed = count_tests(output)
    failing = failing_tests(output)
    if exit_code not in (0, None) and not failed:
        failed = max(len(failing), 1)  # a collection error or a crash: not a pass
    return CheckResult(command, exit_code, passed, failed, failing)


def feedback(output: str, budget: int = FEEDBACK_CHARS) -> str:
    """The part of a failing run worth reading again, at most `budget` characters: the first
    failures' own sections, then the one-line summary of every failure."""
    text = output.strip()
    if len(text) <= budget:
        return text
    starts = [m.start() for m in _SECTION.finditer(text)]
    summary_at = text.find("short test summary info")
    summary = text[text.rfind("\n", 0, summary_at) + 1 :] if summary_at >= 0 else ""
    summary = summary[-budget // 3 :] if len(summary) > budget // 3 else summary
    room = budget - len(summary) - 40
    pieces: list[str] = []
    last_end = summary_at if starts and summary_at > starts[-1] else len(text)
    share = max(room // max(1, min(len(starts), FAILURE_SECTIONS)), 200)
    for start, end in zip(starts[:FAILURE_SECTIONS], [*starts[1:], last_end], strict=False):
        section = text[start:end].strip()
        pieces.append(section if len(section) <= share else section[: share - 20] + "\n[…]")
    if not pieces:  # no sections to pick: the head and the tail
        half = max(room // 2, 200)
        pieces = [text[:half] + "\n[…]", text[-half:]]
    body = "\n\n".join(pieces)
    return f"{body}\n\n{summary}".strip()[: budget + 200]

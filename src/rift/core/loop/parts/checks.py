"""The project's own checks judge the change, in rounds.

A small model calls its first plausible edit done; a failing test is the only
judge that does not care how the task was worded. So (checks/ finds the
command from the files and manifests):

- before the turn's first change to a file, the tests that belong to it run once,
  unrecorded, to know what already failed (the "before" version's score);
- when the model ends its part of the turn, the checks run (through the real bash
  tool, so the permission gate, the sandbox and the events apply) and what failed
  goes back to it, cut to what a small context holds, for up to K rounds (the
  profile's `check_rounds`);
- every version is scored; a round that passes fewer tests than the best so far
  is rolled back to the best version, through the undo journal (the very files
  rift wrote, checked before they are replaced);
- the rounds stop when one does not improve on the one before.

The test files that judge are locked for the rest of the session (the model
cannot pass by rewriting its judge): `ToolServices.locked_tests`, read by
tools/protected.py. The turn's last reading is `Checks.result`, which `done` and
`-p` report (exit code 5 when they still fail).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from rift.checks import discover, results
from rift.checks.results import CheckResult
from rift.core.loop.parts import Part, Turn
from rift.core.loop.parts.leftovers import changed_files
from rift.fs import safe_fs
from rift.models.base import ToolCall

if TYPE_CHECKING:
    from rift.core.loop.reply import Reply
    from rift.tools.base import Tool

CHECK_TIMEOUT_S = 120
CHECK_ID = "rift_check_"
FAILED = (
    "[system] The project's checks ran after your change: {summary}. Their output is above. "
    "Change the code so that they pass; the tests are the judge and stay as they are."
)
WORSE = (
    "[system] That change made the checks worse ({now}, against {best} before it), so rift "
    "put back the best version."
)
_EXIT = re.compile(r"\[exit code: (-?\d+)\]\s*$")


def exit_code(ok: bool, text: str) -> int | None:
    """The bash tool's exit code, from its output; None when it timed out or did not run."""
    if ok:
        return 0
    found = _EXIT.search(text)
    return int(found.group(1)) if found else None


def snapshot(paths: list[Path]) -> dict[Path, bytes | None]:
    """The files' bytes now (None: gone), read without following links."""
    taken: dict[Path, bytes | None] = {}
    for path in paths:
        try:
            taken[path] = safe_fs.read_regular(path)[0]
        except FileNotFoundError:
            taken[path] = None
        except OSError:
            continue
    return taken


class Checks(Part):
    """The judge: a before reading, then up to `rounds` rounds after the model's change."""

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        self.result: CheckResult | None = None
        """The turn's last reading (after a rollback: the best version's)."""
        self.before: CheckResult | None = None
        self._best: tuple[CheckResult, dict[Path, bytes | None]] | None = None
        self._round = 0
        self._done = False
        self._runs = 0

    async def before_tool(self, turn: Turn, call: ToolCall, tool: Tool) -> str | None:
        path = (call.arguments or {}).get("path")
        if not tool.mutating or self.before is not None or self._done or not isinstance(path, str):
            return None
        cwd = turn.s.ctx.cwd
        target = safe_fs.resolve(turn.s.ctx.resolve(path))
        command = discover.command_for([target], cwd)
        if command is None:
            return None
        self.before = await self._run(turn, command, record=False)
        if self.before is not None:
            judged = set(discover.judged_files(command, cwd)) - {target}
            services = turn.s.ctx.services
            services.locked_tests = services.locked_tests | frozenset(judged)
        return None

    async def before_end(self, turn: Turn, reply: Reply) -> bool:
        if self._done or not turn.changed or "bash" not in turn.s.tools:
            return False
        ctx = turn.s.ctx
        changed = changed_files(ctx.journal)
        command = discover.command_for(list(changed), ctx.cwd)
        if command is None:
            return False
        now = await self._run(turn, command, record=True)
        if now is None:  # refused or could not start: nothing to judge by
            self._done = True
            return False
        previous = self.result
        self.result = now
        self._keep_best(command, now, changed)
        best = self._best
        if best is not None and now.score() < best[0].score():
            self._roll_back(turn, now, best)
            return self._end(turn)
        self._round += 1
        improved = previous is None or now.score() > previous.score()
        if now.ok or self._round >= self.rounds or not improved:
            return self._end(turn)
        turn.counters["check_failures"] += 1
        turn.say(FAILED.format(summary=now.describe()))
        for part in turn.parts.items:  # the whole-file format asks for the file again
            again = getattr(part, "ask_again", None)
            if again is not None:
                again(turn)
        return True

    def _end(self, turn: Turn) -> bool:
        """No more rounds: an honest last line when the checks still fail."""
        self._done = True
        result = self.result
        if result is not None and not result.ok:
            named = ", ".join(result.failing[:5]) + (" …" if len(result.failing) > 5 else "")
            turn.answer(
                f"The project's checks still fail ({result.describe()}"
                + (f": {named}" if named else "")
                + f"). Command: {result.command}"
            )
        return False

    def _keep_best(self, command: str, now: CheckResult, changed: dict[Path, bytes | None]) -> None:
        if self._best is None and self.before is not None and self.before.command == command:
            self._best = (self.before, dict(changed))  # the version before the turn
        if self._best is None or now.score() > self._best[0].score():
            self._best = (now, snapshot(list(changed)))

    def _roll_back(
        self,
        turn: Turn,
        now: CheckResult,
        best: tuple[CheckResult, dict[Path, bytes | None]],
    ) -> None:
        """Put the best version's files back through the journal (exactly the files rift
        wrote, refused when someone else changed them since)."""
        journal = turn.s.ctx.journal
        failed = []
        for path, data in best[1].items():
            try:
                journal.put_back(path, data)  # type: ignore[attr-defined]
            except (OSError, AttributeError) as exc:
                failed.append(f"{path.name}: {exc}")
        turn.counters["check_rollbacks"] += 1
        self.result = best[0]
        text = WORSE.format(now=now.describe(), best=best[0].describe())
        if failed:
            text += " Could not restore: " + "; ".join(failed)
        turn.say(text)
        turn.note(text.removeprefix("[system] "))

    async def _run(self, turn: Turn, command: str, *, record: bool) -> CheckResult | None:
        """One run through the bash tool; None when it did not run (refused, no shell) or
        did not finish in time (a whole suite too slow to judge each round is no judge)."""
        self._runs += 1
        call = ToolCall(
            id=f"{CHECK_ID}{self._runs}",
            name="bash",
            arguments={"command": command, "timeout_secs": CHECK_TIMEOUT_S},
        )
        output = await turn.execute(call, record=record, shown=results.feedback)
        code = exit_code(output.ok, output.text)
        if code is None:  # refused, no shell, or past CHECK_TIMEOUT_S: nothing to judge by
            return None
        return results.read_run(command, code, output.text)

    def ended_failing(self) -> CheckResult | None:
        """The last reading when the turn ends with the checks failing, else None."""
        return self.result if self.result is not None and not self.result.ok else None

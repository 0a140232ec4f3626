"""Post-edit hooks: the user's checks (formatter, linter, tests) after every write/edit.

A failing hook does not undo the edit: its output is appended to the tool result,
so the model sees at once that its change broke the checks.

With the bwrap sandbox on, hooks run inside it like bash does: a hook usually
runs project files (`sh ./check.sh`, `make lint`) that a sandboxed command may
have just rewritten, so running it outside would hand that command a way out.
"""

from __future__ import annotations

from rift.tools._proc import run_shell, strip_ansi
from rift.tools.base import ToolContext, middle_truncate

HOOK_TIMEOUT = 120.0
HOOK_OUTPUT_LIMIT = 4000


async def _run_hook(command: str, ctx: ToolContext, timeout: float) -> str | None:
    """None when the hook passed, else its failure report."""
    try:
        executed = command if ctx.sandbox is None else ctx.sandbox.wrap(command, ctx.cwd)
        result = await run_shell(executed, ctx.cwd, timeout)
    except OSError as exc:
        return f"\n[post-edit hook FAILED to run: {command}]\n{exc}"
    streams = (strip_ansi(result.stdout).strip("\n"), strip_ansi(result.stderr).strip("\n"))
    output = middle_truncate("\n".join(part for part in streams if part), HOOK_OUTPUT_LIMIT)
    if result.timed_out:
        header = f"\n[post-edit hook TIMED OUT after {timeout:g}s: {command}]"
    elif result.exit_code != 0:
        header = f"\n[post-edit hook FAILED (exit {result.exit_code}): {command}]"
    else:
        return None
    return f"{header}\n{output}" if output else header


async def run_post_edit_hooks(ctx: ToolContext, timeout: float = HOOK_TIMEOUT) -> str:
    """Run every configured hook in the cwd; "" when all pass, else text to append."""
    failures: list[str] = []
    for command in ctx.post_edit_hooks:
        report = await _run_hook(command, ctx, timeout)
        if report is not None:
            failures.append(report)
    if not failures:
        return ""
    return "".join(failures) + "\nThe edit is applied, but the checks now fail."

"""bash: run a shell command in the project directory.

The gate sees the raw command; only the executed command is rewritten, by the
bubblewrap sandbox or the `bash_wrapper` template. A long-running server hangs the
turn for the full timeout and then gets started again, so without an explicit
timeout it gets a short probe and a note that a startup counts as success.
"""

from __future__ import annotations

import re
from typing import Annotated

from msgspec import Meta

from rift.errors import ToolError
from rift.tools._proc import ShellResult, run_shell, strip_ansi
from rift.tools.arguments import Args, from_args
from rift.tools.base import ToolContext, ToolOutput, middle_truncate, titled

DEFAULT_TIMEOUT = 60
MAX_TIMEOUT = 300
SERVER_PROBE = 15
OUTPUT_LIMIT = 30_000

_SERVER_LIKE = (
    r"\b(?:npm|yarn|pnpm|bun)\s+(?:run\s+)?(?:dev|start|serve|preview|watch)\b"
    r"|\b(?:npx\s+)?vite\b(?!\s+build)"
    r"|(?:^|[\s;&|(])(?:npx\s+)?serve(?:\s|$)"
    r"|\bflask\s+run\b|\b(?:uvicorn|gunicorn|hypercorn|daphne|nodemon|watchexec)\b"
    r"|\btail\b[^|;&]*\s-[a-zA-Z]*[fF]\b"
    r"|--watch\b|\bhttp\.server\b|\bmanage\.py\s+runserver\b|\bwebpack-dev-server\b"
    r"|\bnext\s+(?:dev|start)\b|\bng\s+serve\b|\b(?:jekyll|hugo)\s+serve"
    r"|\brails\s+s(?:erver)?\b|\bphp\s+-S\b|\bcargo\s+watch\b|\bjupyter\s+(?:lab|notebook)\b"
)


def _is_server_like(command: str) -> bool:
    # Compiled on first use (and cached by `re`): 1.4 ms a run that never calls bash saves.
    return "build" not in command and re.search(_SERVER_LIKE, command) is not None


def shell_quote(text: str) -> str:
    """POSIX single quoting: `'` becomes `'\\''`."""
    return "'" + text.replace("'", "'\\''") + "'"


def wrap_command(command: str, ctx: ToolContext) -> str:
    """The command as executed: inside the sandbox when there is one (tools/sandbox.py), else
    through the wrapper template, its {cmd} and {cwd} filled in one pass so neither leaks
    into the other."""
    if ctx.sandbox is not None:
        return ctx.sandbox.wrap(command, ctx.cwd)
    if not ctx.bash_wrapper:
        return command
    values = {"cmd": shell_quote(command), "cwd": str(ctx.cwd)}
    return re.sub(r"\{(cmd|cwd)\}", lambda m: values[m.group(1)], ctx.bash_wrapper)


def _format(result: ShellResult, timeout: int, probe: bool) -> ToolOutput:
    out, err = strip_ansi(result.stdout), strip_ansi(result.stderr)
    text = out
    if err:
        text += "\n--- stderr ---\n" + err
    if not out and not err:
        text = "(no output)"
    text = middle_truncate(text, OUTPUT_LIMIT)
    if result.timed_out and probe:
        note = (
            f"\n[stopped after {timeout}s: this looks like a long-running server or watcher."
            " If the output shows it started, treat that as success and do not run it again;"
            " use run_in_background to keep it running.]"
        )
        return ToolOutput(ok=True, text=text + note)
    if result.timed_out:
        note = (
            f"\n[timed out after {timeout}s; the command and its children were killed."
            f" Retry with a larger timeout_secs (max {MAX_TIMEOUT}) or run_in_background.]"
        )
        return ToolOutput(ok=False, text=text + note)
    if result.exit_code != 0:
        text += f"\n[exit code: {result.exit_code}]"
    return ToolOutput(ok=result.exit_code == 0, text=text)


class BashArgs(Args, frozen=True, kw_only=True):
    command: str
    timeout_secs: Annotated[int | None, Meta(description="default 60, max 300")] = None
    run_in_background: bool = False


async def _run(args: BashArgs, ctx: ToolContext) -> ToolOutput:
    command = args.command
    if not command.strip():
        raise ToolError("command is empty")
    explicit, background = args.timeout_secs, args.run_in_background
    tasks = ctx.services.tasks
    if background and tasks is None:
        raise ToolError("background tasks are not available here; run it in the foreground")
    refusal = await ctx.gate.authorize_bash(command)
    if refusal is not None:
        return ToolOutput(ok=False, text=refusal)
    executed = wrap_command(command, ctx)
    if background and tasks is not None:
        started = await tasks.start_shell(executed, ctx.cwd, label=command)
        return ToolOutput(ok=True, text=started)
    probe = explicit is None and _is_server_like(command)
    if explicit is None:
        timeout = SERVER_PROBE if probe else DEFAULT_TIMEOUT
    else:
        timeout = min(max(explicit, 1), MAX_TIMEOUT)
    terminal = ctx.services.terminal  # an editor's terminal (ACP), else a local shell
    try:
        if terminal is not None:
            code, output = await terminal.run(executed, ctx.cwd, timeout)  # code None: timed out
            result = ShellResult(code, output, "", timed_out=code is None)
        else:
            result = await run_shell(executed, ctx.cwd, timeout)
    except OSError as exc:
        raise ToolError(f"could not start the shell: {exc}") from exc
    return _format(result, timeout, probe)


TOOL = from_args(
    _run,
    description=(
        "Run a shell command in the project directory. "
        "Non-interactive; use run_in_background for servers and watchers."
    ),
    kind="execute",
    title=titled("{}", "command", "Run a command"),
    asks=True,
    mutating=True,
)

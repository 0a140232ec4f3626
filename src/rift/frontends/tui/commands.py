"""Slash commands: the TUI's handler for a command of the core registry, plus dispatch.

A handler is `async (app, arg) -> None`, the app seen as a `host.CommandHost`; it fails
by raising `RiftError` (shown as `! <error>`)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from rich.text import Text

from rift.core import for_face
from rift.errors import RiftError, ToolError
from rift.frontends.tui import session_commands as session
from rift.frontends.tui.config_edit import config as _config
from rift.frontends.tui.format import gauge
from rift.frontends.tui.paste import paste as _paste
from rift.frontends.tui.session_commands import run
from rift.frontends.tui.swarm_commands import candidates as _candidates
from rift.frontends.tui.swarm_commands import swarm as _swarm
from rift.frontends.tui.widgets.activity import color_diff
from rift.frontends.tui.widgets.composer import CommandHint

if TYPE_CHECKING:
    from rift.core import Command as CoreCommand
    from rift.frontends.tui.host import CommandHost

Handler = Callable[["CommandHost", str], Awaitable[None]]
_COMMAND = re.compile(r"/[A-Za-z][\w:.-]*")
KEYS = (
    ("Enter", "send"),
    ("Ctrl+J / Alt+Enter", "newline"),
    ("↑ / ↓", "prompt history (on an empty prompt; Alt+↑/↓ anywhere)"),
    ("Esc", "take back a queued prompt · cancel the turn · close the palette"),
    ("Ctrl+C", "cancel the turn · twice on an idle prompt: quit"),
    ("PgUp / PgDn", "scroll the transcript (Home/End too, on an empty prompt)"),
    ("Tab", "complete in the palette · next pane"),
    ("Ctrl+D", "activity pane ⇄ live git diff"),
    ("Ctrl+L", "hide/show the activity pane"),
    ("/quit", "save and exit"),
)


def is_command(text: str) -> bool:
    """`/name …` with a command-shaped name; `/etc/hosts is broken` is a prompt."""
    first = text.strip().split(maxsplit=1)
    return bool(first) and _COMMAND.fullmatch(first[0]) is not None


async def dispatch(app: CommandHost, text: str) -> None:
    from rift.core import parse_command, split_command

    invocation = parse_command(text, names=COMMANDS)
    if invocation is not None and invocation.skill:
        await _skill(app, invocation.name, invocation.argument)
        return
    head, arg = split_command(text) or ("", "")
    spec = COMMANDS.get(head)
    if spec is None:
        app.say(f"unknown command '/{head}' — /help lists available commands", "warning")
        app.status_bar.set(text="unknown command")
        return
    if spec.idle_only and app.driver.busy:
        raise RiftError(f"/{head}: a turn is running — press Esc to cancel it, or wait")
    if spec.needs_model:
        app.require_conversation()
    handler = HANDLERS.get(head)
    if handler is None:  # the TUI shows no more of it than its events
        run(app, head, arg)
    else:
        await handler(app, arg)


def hints(skills: Sequence[str]) -> list[CommandHint]:
    """What the `/` palette offers, skills included."""
    out = [CommandHint(name, c.args, c.help) for name, c in COMMANDS.items()]
    out += [CommandHint(f"skill:{name}", "[task]", "run this skill") for name in skills]
    return out


async def _help(app: CommandHost, arg: str) -> None:
    text = Text.assemble(("commands", "bold"), "\n")
    for name, command in COMMANDS.items():
        text.append(f"  /{name}", style="bold cyan")
        text.append(f" {command.args}" if command.args else "", style="cyan")
        text.append(f"  {command.help}\n", style="")
    text.append("  /skill:<name>", style="bold cyan")
    text.append(" [task]  run a skill (see /skills)\n", style="")
    text.append("  @path", style="bold cyan")
    text.append("  attach a file to the prompt (Tab completes)\n\nkeys\n", style="")
    for key, meaning in KEYS:
        text.append(f"  {key:<20}", style="bold")
        text.append(f"{meaning}\n")
    text.rstrip()
    app.say(text)


ON_WORDS = ("", "on", "yes", "true", "1")
OFF_WORDS = ("off", "no", "false", "0")


async def _approve(app: CommandHost, arg: str) -> None:
    word = arg.strip().lower()
    if word not in ON_WORDS + OFF_WORDS:
        raise RiftError(f"usage: /approve [on|off] (not '{arg.strip()}')")
    await _set_approval(app, word in ON_WORDS)


async def _yolo(app: CommandHost, arg: str) -> None:
    word = arg.strip().lower()
    if word not in ("", "on", "off"):
        raise RiftError(f"usage: /yolo [off] (not '{arg.strip()}')")
    await _set_approval(app, word == "off")


async def _set_approval(app: CommandHost, on: bool) -> None:
    from rift.core import set_approval

    conversation = app.require_conversation()
    set_approval(conversation, on)
    app.status_bar.set(mode=conversation.state.mode)
    if on:
        app.say("approval on: writes, edits and bash commands ask first", "info")
    else:
        app.say("approval off (yolo): writes, edits and bash run without asking", "warning")


MODE_HELP = {
    "ask": "writes, edits and bash commands ask first",
    "accept-edits": "writes and edits run without asking; bash still asks",
    "plan": "read-only: writes, edits and bash are refused until you switch mode",
    "auto": "everything runs without asking (yolo); deny rules still refuse",
}


async def _mode(app: CommandHost, arg: str) -> None:
    from rift.core import MODES, set_mode

    conversation = app.require_conversation()
    word = arg.strip().lower()
    if not word:
        lines = [f"approval mode: {conversation.state.mode}"]
        lines += [f"  {name:<13}{MODE_HELP[name]}" for name in MODES]
        app.say("\n".join(lines))
        return
    if not set_mode(conversation, word):
        raise RiftError(f"usage: /mode {'|'.join(MODES)} (not '{arg.strip()}')")
    app.status_bar.set(mode=word)
    app.say(f"mode {word}: {MODE_HELP[word]}", "warning" if word == "auto" else "info")


async def _autocontinue(app: CommandHost, arg: str) -> None:
    conversation = app.require_conversation()
    word = arg.strip().lower()
    if word in ("on", "off"):
        conversation.auto_continue = word == "on"
    elif word:
        raise RiftError(f"usage: /autocontinue [on|off] (not '{arg.strip()}')")
    if conversation.auto_continue:
        app.say("auto-continue on: a background task that finishes while idle starts a turn")
    else:
        app.say("auto-continue off: a finished task's note leads your next prompt")


async def _permissions(app: CommandHost, arg: str) -> None:
    if arg:
        run(app, "permissions", arg)
        return
    from rift.core import permission_rules

    conversation = app.require_conversation()
    state, config = conversation.state, conversation.state.config
    rules = permission_rules(conversation)  # in force now: granted in this session included
    text = Text.assemble(("approval mode: ", "bold"), state.mode, "\n")
    for kind in ("allow", "ask", "deny"):
        texts = rules.get(kind, ())
        text.append(f"{kind}: ", style="bold")
        text.append(", ".join(texts) if texts else "(none)", style="" if texts else "dim")
        text.append("\n")
    session = rules.get("session", ())
    if session:
        text.append("this session: ", style="bold")
        text.append(", ".join(session) + " run without asking\n")
    text.append(f"config: {config.user_config_path or config.paths.user_config}")
    app.say(text)


async def _think(app: CommandHost, arg: str) -> None:
    try:
        from rift.core import set_thinking

        app.say(set_thinking(app.require_conversation(), arg), "info")
    except ValueError as exc:
        raise RiftError(f"/think: {exc}") from exc


async def _tokens(app: CommandHost, arg: str) -> None:
    from rift.core import budget, context_gauge, history

    conversation = app.require_conversation()
    used, limit = context_gauge(conversation).used, conversation.state.num_ctx
    label, _ = gauge(used, limit)
    app.say(
        f"{label} · {used} of {limit} tokens (estimate)\n"
        f"compaction budget: {budget(limit)} tokens (num_ctx − 5120)\n"
        f"messages: {len(history(conversation))} shown in the conversation"
    )


async def _stats(app: CommandHost, arg: str) -> None:
    from rift.core import usage_lines

    t = app.driver.totals
    conversation = app.driver.conversation
    rate = t.prefill_tokens_per_sec
    prefill = f"{rate:,.1f} tok/s (last long prompt)" if rate else "not reported by this server"
    app.say(
        f"turns: {t.turns} · tools: {t.tools} ({t.tool_failures} failed)\n"
        f"tokens: {t.prompt_tokens} prompt · {t.output_tokens} output · {t.rate:.1f} tok/s\n"
        f"prompt reading (prefill): {prefill}\n"
        f"{t.time_line()}\n"
        f"model: {conversation.state.model if conversation else '(offline)'}\n"
        f"session: {conversation.session_path if conversation else '-'}"
        + "".join(f"\n{line}" for line in usage_lines())  # a server pool's per-server use
    )


async def _cost(app: CommandHost, arg: str) -> None:
    t = app.driver.totals
    turns = f"{t.turns} turn{'s' if t.turns != 1 else ''}"
    lines = [
        f"this session: {turns} · {t.billed_prompt_tokens:,} prompt tokens billed"
        f" · {t.output_tokens:,} output tokens",
        f"estimated cost: ${t.cost_usd:.4f}",
    ]
    if not t.cost_usd:
        lines[-1] += " (local or unpriced model: the config's `pricing` table sets rates)"
    app.say("\n".join(lines))


async def _plan(app: CommandHost, arg: str) -> None:
    if arg == "clear":
        from rift.core import clear_plan

        clear_plan(app.require_conversation())
        app.plan_items = []
        app.activity.plan.set_items([])
        app.say("plan cleared")
        return
    if not app.plan_items:
        app.say("(no plan yet — the agent writes one for multi-step tasks)")
        return
    items = enumerate(app.plan_items, 1)
    app.say("\n".join(f"{'☑' if item.done else '☐'} {n}. {item.text}" for n, item in items))


async def _tasks(app: CommandHost, arg: str) -> None:
    app.require_conversation()
    tasks = app.driver.tasks
    assert tasks is not None  # bound together with the conversation
    verb, _, rest = arg.partition(" ")
    task_id, _, payload = rest.strip().partition(" ")
    try:
        if not verb:
            app.say(tasks.describe())
        elif verb in ("kill", "eof", "send") and task_id.isdigit():
            n = int(task_id)
            if verb == "kill":
                app.say(await tasks.kill(n))
            elif verb == "eof":
                app.say(tasks.close_stdin(n))
            else:
                app.say(await tasks.send_input(n, payload))
        else:
            raise RiftError("usage: /tasks [kill <id> | send <id> <text> | eof <id>]")
    except ToolError as exc:
        raise RiftError(str(exc)) from exc
    app.refresh_tasks()


async def _skills(app: CommandHost, arg: str) -> None:
    skills = app.require_conversation().state.skills
    if not skills:
        app.say("(no skills: add .rift/skills/<name>/SKILL.md or ~/.config/rift/skills/)")
        return
    app.say("\n".join(f"/skill:{s.name} — {s.description}" for s in skills.values()))


async def _skill(app: CommandHost, name: str, task: str) -> None:
    if name not in app.require_conversation().state.skills:
        raise RiftError(f"unknown skill '{name}' — /skills lists them")
    app.send_prompt(f"/skill:{name} {task}".strip())  # the conversation expands it


async def _diff(app: CommandHost, arg: str) -> None:
    from rift.frontends.tui.gitdiff import git_diff

    lines = (await git_diff(app.driver.config.cwd)).splitlines()
    app.say(color_diff(lines) if lines else Text("(no changes)", style="dim"), "diff")


async def _copy(app: CommandHost, arg: str) -> None:
    if arg == "all":
        text = session.transcript_markdown(app)
    elif arg == "log":
        text = "\n".join(app.activity.log_view.lines)
    elif not arg:
        text = app.transcript.last_reply
    else:
        raise RiftError("usage: /copy [all|log]")
    if not text:
        raise RiftError("nothing to copy yet")
    app.copy_to_clipboard(text)
    app.say(f"copied {len(text)} characters to the clipboard (OSC 52)")


async def _remember(app: CommandHost, arg: str) -> None:
    if not arg.strip():
        raise RiftError("usage: /remember <fact> (saved to .rift/memory.md for later sessions)")
    if run(app, "remember", arg):
        await app.driver.wait()  # the edit review comes and goes meanwhile


async def _add_dir(app: CommandHost, arg: str) -> None:
    if not arg.strip():
        raise RiftError("usage: /add-dir <path> (write and edit may change files there too)")
    run(app, "add-dir", arg.strip())


async def _quit(app: CommandHost, arg: str) -> None:
    app.exit(0)


HANDLERS: dict[str, Handler] = {
    "help": _help,
    "model": session.model,
    "host": session.host,
    "ctx": session.ctx,
    "temp": session.temp,
    "approve": _approve,
    "yolo": _yolo,
    "mode": _mode,
    "autocontinue": _autocontinue,
    "permissions": _permissions,
    "config": _config,
    "paste": _paste,
    "add-dir": _add_dir,
    "remember": _remember,
    "rewind": session.rewind,
    "compact": session.compact,
    "tokens": _tokens,
    "stats": _stats,
    "cost": _cost,
    "clear": session.clear,
    "sessions": session.sessions,
    "plan": _plan,
    "tasks": _tasks,
    "think": _think,
    "skills": _skills,
    "diff": _diff,
    "copy": _copy,
    "export": session.export,
    "swarm": _swarm,
    "candidates": _candidates,
    "quit": _quit,
}
"""What the TUI does for a command; the rest run the registry's own `run` (events show it)."""


COMMANDS: dict[str, CoreCommand] = {spec.name: spec for spec in for_face("tui")}
"""The registry's commands for the TUI, by name."""

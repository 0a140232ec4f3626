"""The one registry of rift's slash commands, each a `Command` (base.py), grouped by topic
in the modules beside this one (README.md lists them). Every face derives what it offers
from `COMMANDS` and runs a command with `BY_NAME[name].run(owner, argument)`."""

from __future__ import annotations

from collections.abc import Container, Iterable

from rift.core.commands import config, looking, model, session, swarm
from rift.core.commands.base import EVERYWHERE, Command, terminal_only
from rift.text import slash
from rift.text.slash import Invocation

_c = Command
_tui = terminal_only

COMMANDS: tuple[Command, ...] = (
    _c("help", "", "commands and keys", _tui("help"), needs_model=False),
    _c("model", "[name]", "pick or switch the model (saved)", model._model, needs_model=False,
       idle_only=True, wire="set_model"),
    _c("host", "[url]", "show or switch the model server (saved)", model._host,
       needs_model=False, idle_only=True),
    _c("ctx", "<n>", "set the context window num_ctx (saved)", model._ctx, idle_only=True),
    _c("temp", "<0.0-2.0>", "sampling temperature", model._temp, idle_only=True),
    _c("approve", "[on|off]", "approval mode: ask before writes and bash", config._approve,
       wire="set_approval"),
    _c("yolo", "[off]", "approval off: run everything without asking", config._yolo),
    _c("mode", "[ask|accept-edits|plan|auto]", "show or switch the approval mode",
       config._mode, wire="set_mode"),
    _c("autocontinue", "[on|off]", "a finished background task starts a turn",
       _tui("autocontinue")),
    _c("permissions", "[add|remove [allow|ask|deny] <rule>]",
       "show the rules, or add/remove one in the user config", config.permissions_command,
       wire="permissions", faces=EVERYWHERE),
    _c("add-dir", "<path>", "let write/edit change files in another directory (this session)",
       config.add_directory),
    _c("remember", "<fact>", "save a fact for later sessions", session.remember_fact,
       idle_only=True),
    _c("undo", "", "restore files changed by the last turn", session.undo, idle_only=True,
       wire="undo", faces=EVERYWHERE),
    _c("rewind", "[n]", "undo n turns: files and conversation", session._rewind_line,
       idle_only=True, wire="rewind", faces=EVERYWHERE),
    _c("compact", "", "summarize earlier conversation now", session.compact, idle_only=True,
       wire="compact", faces=EVERYWHERE),
    _c("tokens", "", "context budget and estimate", model.tokens),
    _c("stats", "", "session totals", _tui("stats"), needs_model=False),
    _c("cost", "", "session tokens and estimated cost", _tui("cost"), needs_model=False),
    _c("clear", "", "new conversation (the old one is kept)", session.new_conversation,
       idle_only=True, wire="new_session", faces=EVERYWHERE),
    _c("sessions", "[n]", "resume another session (numbered)", session.list_sessions,
       needs_model=False, idle_only=True, wire="list_sessions"),
    _c("save", "<name>", "name this session (it continues under the name)",
       session.rename_session, idle_only=True, wire="save", faces=EVERYWHERE),
    _c("plan", "[clear]", "show or clear the plan checklist", looking.plan, needs_model=False),
    _c("tasks", "[kill|send|eof <id>]", "background tasks", _tui("tasks")),
    _c("think", "[on|off|auto|minimal…max]", "thinking and effort", model._think,
       idle_only=True),
    _c("skills", "", "list skills", looking.show_skills),
    _c("diff", "", "coloured git diff of the working tree", _tui("diff"), needs_model=False),
    _c("copy", "[all|log]", "copy the last reply, transcript or log", _tui("copy"),
       needs_model=False),
    _c("export", "[file]", "write the transcript as Markdown", _tui("export")),
    _c("paste", "", "attach the clipboard's image to the next prompt (vision models)",
       _tui("paste")),
    _c("swarm", "<task> [--models a,b] [--attempts N] [--explore] [--judge M|tests|none]",
       "race candidates in git worktrees; tests or a judge pick", swarm.swarm_line,
       idle_only=True, wire="swarm", faces=EVERYWHERE),
    _c("merge", "<name> [--cleanup]", "apply a swarm candidate's patch (undoable)",
       swarm.merge_line, idle_only=True, wire="merge", faces=EVERYWHERE),
    _c("worktrees", "", "the last swarm race's worktrees and patches", swarm.show_worktrees,
       wire="worktrees", faces=EVERYWHERE),
    _c("candidates", "", "the last swarm race: a tab per candidate, its activity and patch",
       _tui("candidates"), needs_model=False),
    _c("quit", "", "save and exit", _tui("quit"), needs_model=False),
    _c("retry", "", "rerun the last prompt (its turn rewound first)", session.retry,
       idle_only=True, wire="retry", faces=EVERYWHERE),
    _c("init", "[notes]", "survey the project and write or update AGENTS.md",
       session.init_agents_md, idle_only=True, wire="init", faces=EVERYWHERE),
    _c("share", "[file]", "write the conversation as one HTML file", session.share,
       wire="share", faces=EVERYWHERE),
    _c("fork", "", "copy the session and continue in the copy", session.fork, idle_only=True,
       wire="fork", faces=EVERYWHERE),
    _c("system", "", "show the system prompt", looking.show_system_prompt, wire="system",
       faces=EVERYWHERE),
    _c("tools", "", "list the tools the model can call", looking.show_tools, wire="tools",
       faces=EVERYWHERE),
    _c("btw", "<question>", "a side question, answered outside the history", session.btw,
       wire="btw", faces=EVERYWHERE),
    _c("mcp", "", "MCP servers, their state and tools", looking.show_mcp, wire="mcp",
       faces=EVERYWHERE),
    _c("lsp", "", "language servers and the last diagnostics", looking.show_lsp, wire="lsp",
       faces=EVERYWHERE),
    _c("roles", "[ROLE MODEL]", "the model roles, their servers and whether each is served;"
       " or point one at a model", model.roles, wire="roles", faces=EVERYWHERE),
    _c("restart", "", "restart MCP servers, plugins and skills from the current config;"
       " the conversation stays", model.restart, idle_only=True, wire="restart",
       faces=EVERYWHERE),
    _c("config", "[reload|edit]", "the settings and their sources; reload or edit the file",
       config.config_command, wire="config", faces=EVERYWHERE),
)  # fmt: skip
BY_NAME: dict[str, Command] = {c.name: c for c in COMMANDS}

PROTOCOL_ONLY = ("hello", "prompt", "answer", "edit_decision", "cancel", "list_models")
"""Serve commands that are no slash command: the handshake, the turn, its answers."""
SERVE_ORDER = (
    "hello",
    "prompt",
    "answer",
    "edit_decision",
    "cancel",
    "undo",
    "list_sessions",
    "list_models",
    "set_model",
    "set_approval",
    "set_mode",
    "rewind",
    "compact",
    "new_session",
)
"""The order `ready.commands` has always listed them in (clients may show it)."""


def parse_command(
    text: str, skills: Container[str] = (), names: Iterable[str] | None = None
) -> Invocation | None:
    """The command a prompt invokes (text/slash.py), `names` defaulting to the registry's."""
    return slash.parse_command(text, skills, BY_NAME if names is None else names)


def for_face(face: str) -> tuple[Command, ...]:
    """The commands a face offers, in the registry's order."""
    return tuple(c for c in COMMANDS if face in c.faces)


def serve_commands() -> list[str]:
    """`ready.commands`: the protocol's own commands and every command's wire name."""
    carried = [c.wire for c in COMMANDS if c.wire is not None]
    ordered = [name for name in SERVE_ORDER if name in PROTOCOL_ONLY or name in carried]
    return ordered + [name for name in carried if name not in ordered]

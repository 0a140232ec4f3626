"""The one list of rift's slash commands, and the one parser of `/name args`.

Every face derives what it offers from `COMMANDS`: the TUI's `/help` and `/`
palette, serve's `ready.commands` (through each command's `wire` name) and
ACP's `available_commands` (the commands marked for it). A command that drives
the owner names the `Conversation` method it calls (`method`), so a face maps a
name to behaviour without a table of its own. `parse_command` is the only reader of a
slash command's text: the TUI's dispatch, ACP's prompts and the owner's skill
expansion (`/skill:name task`) all go through it.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from msgspec import Struct

TUI, ACP = "tui", "acp"
EVERYWHERE = frozenset({TUI, ACP})


class CommandSpec(Struct, frozen=True):
    """One slash command as every face describes it."""

    name: str
    args: str
    """The argument hint (`[n]`: optional, `<fact>`: required, "": none)."""
    help: str
    idle_only: bool = False
    """Refused while a turn runs (it changes the conversation or the model)."""
    needs_model: bool = True
    method: str | None = None
    """The `Conversation` method the command drives, when it drives the owner."""
    wire: str | None = None
    """The serve protocol command that carries it (`ready.commands`)."""
    faces: frozenset[str] = frozenset({TUI})

    @property
    def takes_argument(self) -> bool:
        """An argument is required: choosing it in a palette waits for one."""
        return bool(self.args) and not self.args.startswith("[")


def _c(name: str, args: str, help: str, **more: object) -> CommandSpec:
    return CommandSpec(name, args, help, **more)  # type: ignore[arg-type]


COMMANDS: tuple[CommandSpec, ...] = (
    _c("help", "", "commands and keys", needs_model=False),
    _c("model", "[name]", "pick or switch the model (saved)", needs_model=False, idle_only=True,
       method="set_model", wire="set_model"),
    _c("host", "[url]", "show or switch the model server (saved)", needs_model=False,
       idle_only=True, method="set_option"),
    _c("ctx", "<n>", "set the context window num_ctx (saved)", idle_only=True, method="set_option"),
    _c("temp", "<0.0-2.0>", "sampling temperature", idle_only=True, method="set_option"),
    _c("approve", "[on|off]", "approval mode: ask before writes and bash", method="set_approval",
       wire="set_approval"),
    _c("yolo", "[off]", "approval off: run everything without asking", method="set_approval"),
    _c("mode", "[ask|accept-edits|plan|auto]", "show or switch the approval mode",
       method="set_mode", wire="set_mode"),
    _c("autocontinue", "[on|off]", "a finished background task starts a turn"),
    _c("permissions", "[add|remove [allow|ask|deny] <rule>]",
       "show the rules, or add/remove one in the user config", method="command",
       wire="permissions", faces=EVERYWHERE),
    _c("add-dir", "<path>", "let write/edit change files in another directory (this session)"),
    _c("remember", "<fact>", "save a fact for later sessions", idle_only=True, method="remember"),
    _c("undo", "", "restore files changed by the last turn", idle_only=True, method="undo",
       wire="undo", faces=EVERYWHERE),
    _c("rewind", "[n]", "undo n turns: files and conversation", idle_only=True, method="rewind",
       wire="rewind", faces=EVERYWHERE),
    _c("compact", "", "summarize earlier conversation now", idle_only=True, method="compact",
       wire="compact", faces=EVERYWHERE),
    _c("tokens", "", "context budget and estimate", method="context_gauge"),
    _c("stats", "", "session totals", needs_model=False),
    _c("cost", "", "session tokens and estimated cost", needs_model=False),
    _c("clear", "", "new conversation (the old one is kept)", idle_only=True,
       method="new_conversation", wire="new_session", faces=EVERYWHERE),
    _c("sessions", "[n]", "resume another session (numbered)", needs_model=False, idle_only=True,
       method="list_sessions", wire="list_sessions"),
    _c("save", "<name>", "name this session (it continues under the name)", idle_only=True,
       method="command", wire="save", faces=EVERYWHERE),
    _c("plan", "[clear]", "show or clear the plan checklist", needs_model=False),
    _c("tasks", "[kill|send|eof <id>]", "background tasks"),
    _c("think", "[on|off|auto|minimal…max]", "thinking and effort", idle_only=True,
       method="set_thinking"),
    _c("skills", "", "list skills"),
    _c("diff", "", "coloured git diff of the working tree", needs_model=False),
    _c("copy", "[all|log]", "copy the last reply, transcript or log", needs_model=False),
    _c("export", "[file]", "write the transcript as Markdown"),
    _c("paste", "", "attach the clipboard's image to the next prompt (vision models)"),
    _c("swarm", "<task> [--models a,b] [--attempts N] [--explore] [--judge M|tests|none]",
       "race candidates in git worktrees; tests or a judge pick", idle_only=True,
       method="swarm_line", wire="swarm", faces=EVERYWHERE),
    _c("merge", "<name> [--cleanup]", "apply a swarm candidate's patch (undoable)",
       idle_only=True, method="merge", wire="merge", faces=EVERYWHERE),
    _c("worktrees", "", "the last swarm race's worktrees and patches", method="command",
       wire="worktrees", faces=EVERYWHERE),
    _c("candidates", "", "the last swarm race: a tab per candidate, its activity and patch",
       needs_model=False),
    _c("quit", "", "save and exit", needs_model=False),
    # The everyday commands (daily.py): every face runs them through Conversation.command.
    _c("retry", "", "rerun the last prompt (its turn rewound first)", idle_only=True,
       method="command", wire="retry", faces=EVERYWHERE),
    _c("init", "[notes]", "survey the project and write or update AGENTS.md", idle_only=True,
       method="command", wire="init", faces=EVERYWHERE),
    _c("share", "[file]", "write the conversation as one HTML file", method="command",
       wire="share", faces=EVERYWHERE),
    _c("fork", "", "copy the session and continue in the copy", idle_only=True,
       method="command", wire="fork", faces=EVERYWHERE),
    _c("system", "", "show the system prompt", method="command", wire="system",
       faces=EVERYWHERE),
    _c("tools", "", "list the tools the model can call", method="command", wire="tools",
       faces=EVERYWHERE),
    _c("btw", "<question>", "a side question, answered outside the history", method="command",
       wire="btw", faces=EVERYWHERE),
    _c("mcp", "", "MCP servers, their state and tools", method="command", wire="mcp",
       faces=EVERYWHERE),
    _c("lsp", "", "language servers and the last diagnostics", method="command", wire="lsp",
       faces=EVERYWHERE),
    _c("roles", "[ROLE MODEL]", "the model roles, their servers and whether each is served;"
       " or point one at a model", method="command", wire="roles", faces=EVERYWHERE),
    _c("restart", "", "restart MCP servers, plugins and skills from the current config;"
       " the conversation stays", idle_only=True, method="command", wire="restart",
       faces=EVERYWHERE),
    _c("config", "[reload|edit]", "the settings and their sources; reload or edit the file",
       method="command", wire="config", faces=EVERYWHERE),
)  # fmt: skip
BY_NAME: dict[str, CommandSpec] = {spec.name: spec for spec in COMMANDS}

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


def for_face(face: str) -> tuple[CommandSpec, ...]:
    """The commands a face offers, in the registry's order."""
    return tuple(spec for spec in COMMANDS if face in spec.faces)


def serve_commands() -> list[str]:
    """`ready.commands`: the protocol's own commands and every command's wire name."""
    carried = [spec.wire for spec in COMMANDS if spec.wire is not None]
    ordered = [name for name in SERVE_ORDER if name in PROTOCOL_ONLY or name in carried]
    return ordered + [name for name in carried if name not in ordered]


def everyday_wires() -> dict[str, str]:
    """Serve command → registry name for the commands run by `Conversation.command`
    (additive serve commands: `{"cmd": "retry"}`, `{"cmd": "share", "args": "t.html"}`)."""
    return {
        spec.wire: spec.name
        for spec in COMMANDS
        if spec.method == "command" and spec.wire is not None
    }


class Invocation(Struct, frozen=True):
    """A prompt that is a command: `skill` when it names a skill, else a registry command."""

    name: str
    argument: str
    skill: bool


def split_command(text: str) -> tuple[str, str] | None:
    """`/head args` → (head, args); a newline right after the head starts the arguments
    too. None when the text does not start with `/`."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    head, _, argument = stripped[1:].partition(" ")
    head, _, more = head.partition("\n")
    argument = (more + " " + argument).strip() if more else argument.strip()
    return head, argument


def parse_command(
    text: str, skills: Container[str] = (), commands: Sequence[CommandSpec] = COMMANDS
) -> Invocation | None:
    """The command a prompt invokes, or None for text meant for the model.

    `/skill:name task` always names a skill (known or not: the owner says which are
    not); `/name args` is one of `commands`, else a skill called `name`; any other
    `/…` (a path like `/etc/hosts`) is text.
    """
    parts = split_command(text)
    if parts is None:
        return None
    head, argument = parts
    if head.startswith("skill:"):
        return Invocation(head[len("skill:") :].strip(), argument, skill=True)
    if any(spec.name == head for spec in commands):
        return Invocation(head, argument, skill=False)
    if head in skills:
        return Invocation(head, argument, skill=True)
    return None

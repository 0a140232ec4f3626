"""The everyday commands beside a turn: /retry, /init, /share, /fork, /system, /tools,
/btw, /config and /permissions add|remove. `Conversation` inherits these, so every face
runs them the same way: through the registry (commands.py), by name, with the argument
as one string (`Conversation.command`). Each says what it did with `info` or `warning`;
those that change the conversation keep the owner's busy rule."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rift.core.conversation.roles import roles_command
from rift.core.sessions.store import SessionStore, prompt_text, save_session
from rift.events import Info, SessionChanged, Warning
from rift.models.base import ChatRequest, ContentDelta, Message

if TYPE_CHECKING:
    from rift.config import Config
    from rift.core.conversation.refusal import Refusal
    from rift.core.conversation.runtime import Agent
    from rift.models.attachments import Attachments

INIT_PROMPT = """\
Survey this project and write AGENTS.md at its root: the instructions a coding agent \
needs to work here. Look at the layout (ls, glob), the README, the build and test \
configuration (pyproject.toml, package.json, Makefile, CI files) and a few central \
source files. Then write AGENTS.md with short sections: what the project is; how to \
install, build, run and test it (exact commands); the code layout (which folder holds \
what); the conventions to follow (style, naming, tests). If AGENTS.md exists, read it \
first and update it: keep what is still true, fix what is not, add what is missing. \
Keep it under 60 lines."""

BTW_CAP_TOKENS = 512
PERMISSION_LISTS = ("allow", "ask", "deny")


class Daily:
    """The everyday commands; mixed into `Conversation` (owner.py)."""

    _agent: Agent
    session_path: Path

    if TYPE_CHECKING:

        def submit(
            self, text: str, attachments: Attachments | None = None
        ) -> Literal[True] | Refusal: ...
        def _refused_busy(self, text: str = ...) -> bool: ...
        def set_model(self, name: str) -> Literal[True] | Refusal: ...
        def show_worktrees(self, _argument: str = "") -> bool: ...
        def _rewind(self, n: int) -> bool: ...
        def _save(self) -> None: ...
        def _spawn(self, body: Coroutine[Any, Any, object]) -> None: ...
        def _start(self, body: Coroutine[Any, Any, object], kind: str = "turn") -> None: ...
        async def _rebind(self, config: Config) -> Literal[True] | Refusal: ...

    def command(self, name: str, argument: str = "") -> bool:
        """Run the everyday command `name` (a registry name) with its argument text.

        True when it was accepted (its outcome follows as events)."""
        handlers: dict[str, Callable[[str], bool]] = {
            "retry": self.retry,
            "init": self.init_agents_md,
            "share": self.share,
            "fork": self.fork,
            "system": self.show_system_prompt,
            "tools": self.show_tools,
            "btw": self.btw,
            "config": self.config_command,
            "permissions": self.permissions_command,
            "save": self.rename_session,
            "mcp": self.show_mcp,
            "lsp": self.show_lsp,
            "worktrees": self.show_worktrees,
            "roles": lambda arg: roles_command(self._agent, arg, self._spawn, self.set_model),
            "restart": self._restart,
        }
        handler = handlers.get(name)
        if handler is None:
            self._agent.emit(Warning(f"unknown command /{name}", code="bad_command"))
            return False
        return handler(argument.strip())

    def _restart(self, _argument: str = "") -> bool:
        """`/restart` (restart.py): extensions and settings anew, as work; conversation kept."""
        from rift.core.conversation.restart import rebuild  # on first use

        async def run() -> None:
            self._save()
            self._agent = await rebuild(self._agent) or self._agent

        if self._refused_busy():
            return False
        self._start(run(), "restart")
        return True

    # ------------------------------------------------------------ the turn

    def retry(self, _argument: str = "") -> bool:
        """Run the last prompt again, its turn first rewound (files and conversation)."""
        if self._refused_busy():
            return False
        prompts = [t for m in self._agent.messages if (t := prompt_text(m)) is not None]
        if not prompts:
            self._agent.emit(Warning("nothing to retry: no prompt yet"))
            return False
        if not self._rewind(1):
            return False
        return bool(self.submit(prompts[-1]))

    def init_agents_md(self, argument: str = "") -> bool:
        """Have the model survey the project and write or update AGENTS.md, as an edit
        that goes through the same gate and review as any other."""
        extra = f"\n\nAlso: {argument}" if argument else ""
        return bool(self.submit(INIT_PROMPT + extra))

    def note_resume(self) -> None:
        """After a resume, the first prompt starts with the files the session touched."""
        from rift.core.sessions.resume_note import resume_note  # resumed sessions only

        note = resume_note(self._agent.messages)
        notes: list[str] | None = getattr(self, "_notes", None)
        if note and notes is not None:
            notes.append(note.strip())

    # ------------------------------------------------------------ the session

    def share(self, argument: str = "") -> bool:
        """Write the conversation as one self-contained HTML file (`/share [file]`)."""
        cwd = self._agent.config.cwd
        target = Path(argument).expanduser() if argument else Path(f"{self.session_path.stem}.html")
        if not target.is_absolute():
            target = cwd / target
        from rift.core.sessions.share import share  # html, on first use

        try:
            written = share(
                self._agent.messages,
                target,
                title=f"rift: {self.session_path.stem}",
                meta=f"model {self._agent.model} · {cwd}",
            )
        except OSError as exc:
            self._agent.emit(Warning(f"share failed: {exc}"))
            return False
        self._agent.emit(Info(f"wrote the transcript to {written}"))
        return True

    def fork(self, _argument: str = "") -> bool:
        """Copy the session to a new file and continue there; the original stays as it was."""
        if self._refused_busy():
            return False
        agent = self._agent
        self._save()
        old = self.session_path
        new = SessionStore(agent.config.paths.sessions_dir).reserve()
        try:
            save_session(new, model=agent.model, cwd=str(agent.config.cwd), messages=agent.messages)
        except OSError as exc:
            agent.emit(Warning(f"fork failed: {exc}"))
            return False
        self.session_path = new
        agent.emit(SessionChanged(session=str(new), previous=str(old)))
        agent.emit(Info(f"forked: continuing in {new.name}; {old.name} is kept as it was"))
        return True

    def rename_session(self, name: str = "") -> bool:
        """`/save NAME`: this session is saved as `NAME.json` and continues there (a
        rename: the old file goes); `--resume` and `/sessions` find it by that name."""
        from rift.core.sessions.named import clean_name

        agent = self._agent
        clean = clean_name(name)
        if not clean:
            agent.emit(Warning("usage: /save <name>"))
            return False
        if self._refused_busy():
            return False
        old = self.session_path
        target = agent.config.paths.sessions_dir / f"{clean}.json"
        if target == old:
            self._save()
            agent.emit(Info(f"session saved as {target}"))
            return True
        if target.exists():
            agent.emit(Warning(f"a session named {clean} exists; choose another name"))
            return False
        try:
            save_session(
                target, model=agent.model, cwd=str(agent.config.cwd), messages=agent.messages
            )
        except OSError as exc:
            agent.emit(Warning(f"save failed: {exc}"))
            return False
        self.session_path = target
        old.unlink(missing_ok=True)
        agent.emit(SessionChanged(session=str(target), previous=str(old)))
        agent.emit(Info(f"session saved as {target}"))
        return True

    def add_directory(self, raw: str) -> bool:
        """Let write and edit change files under `raw` unasked for the rest of the session
        (`/add-dir`; core/permissions/roots.py). An info line, or a warning when it is
        not a directory."""
        agent = self._agent
        home = agent.config.paths.home.as_posix()
        text = home + raw[1:] if raw == "~" or raw.startswith("~/") else raw
        path = agent.config.cwd / text
        if not text.strip() or not path.is_dir():
            agent.emit(Warning(f"not a directory: {raw}"))
            return False
        real = agent.gate.add_root(path)
        agent.emit(Info(f"write and edit may now change files in {real} (this session)"))
        return True

    def set_thinking(self, arg: str) -> str:
        """`/think on|off|auto|<level>` for the next requests; returns the line to show.

        Raises:
            ValueError: an unknown word, or thinking asked of a model that cannot.
        """
        return self._agent.set_thinking(arg)

    def clear_plan(self) -> None:
        """Forget the agent's plan checklist (the TUI's `/plan clear`)."""
        self._agent.ctx.plan.items.clear()

    # ------------------------------------------------------------ looking

    def show_system_prompt(self, _argument: str = "") -> bool:
        """The system prompt the model gets now (the user's own base prompt, if any, is
        `system_prompt.md` in the user config dir)."""
        text = self._agent.messages[0].get("content", "") if self._agent.messages else ""
        self._agent.emit(Info(f"system prompt ({len(text)} characters):\n{text}"))
        return True

    def show_tools(self, _argument: str = "") -> bool:
        """The tools the model may call, with the first line of each description."""
        lines = [
            f"  {name}: {tool.description.strip().splitlines()[0] if tool.description else ''}"
            for name, tool in sorted(self._agent.tools.items())
        ]
        self._agent.emit(Info(f"{len(lines)} tools:\n" + "\n".join(lines)))
        return True

    def show_mcp(self, _argument: str = "") -> bool:
        """The MCP servers configured, each one's state and tools (`/mcp`)."""
        agent = self._agent
        configured = agent.config.mcp
        manager = agent.extensions.mcp if agent.extensions is not None else None
        connections = manager.connections if manager is not None else {}
        if not configured:
            agent.emit(Info('no MCP servers configured ("mcp" in the config, or .mcp.json)'))
            return True
        lines = []
        for name, server in sorted(configured.items()):
            conn = connections.get(name)
            if conn is None:
                state = (
                    "not started (a project server waits for trust)" if server.project else "off"
                )
            elif conn.error:
                state = f"failed: {conn.error}"
            else:
                state = "connected" if conn.session is not None else "starting"
            tools = ", ".join(sorted(conn.tools)) if conn is not None and conn.tools else ""
            lines.append(f"  {name}: {state}" + (f"; tools: {tools}" if tools else ""))
        agent.emit(Info("MCP servers:\n" + "\n".join(lines)))
        return True

    def show_lsp(self, _argument: str = "") -> bool:
        """The language servers running and the last diagnostics each file got (`/lsp`)."""
        agent = self._agent
        service = agent.ctx.services.diagnostics
        status: dict[str, str] = getattr(service, "status", dict)()
        last: dict[Path, list[Any]] = getattr(service, "_last", {})
        if not status:
            agent.emit(Info("no language server running (one starts after an edit it can check)"))
            return True
        lines = [f"  {language}: {argv}" for language, argv in sorted(status.items())]
        lines += [f"  {path.name}: {len(found)} diagnostic(s)" for path, found in last.items()]
        agent.emit(Info("language servers:\n" + "\n".join(lines)))
        return True

    def btw(self, question: str = "") -> bool:
        """A side question, answered from the conversation so far without tools and without
        entering the history; allowed while a turn runs."""
        if not question:
            self._agent.emit(Warning("/btw needs a question"))
            return False
        agent = self._agent
        messages: list[Message] = [dict(m) for m in agent.messages]  # type: ignore[misc]
        messages.append({"role": "user", "content": question})
        request = ChatRequest(
            model=agent.model, messages=messages, num_ctx=agent.num_ctx, think=False
        )

        async def answer() -> None:
            parts: list[str] = []
            try:
                async for event in agent.binding.provider.stream_chat(request):
                    if isinstance(event, ContentDelta):
                        parts.append(event.text)
                        if sum(map(len, parts)) > 4 * BTW_CAP_TOKENS:
                            break
            except Exception as exc:  # a side question must never disturb the turn
                agent.emit(Warning(f"/btw failed: {exc}"))
                return
            agent.emit(Info(f"btw: {''.join(parts).strip()}"))

        self._spawn(answer())
        return True

    # ------------------------------------------------------------ settings

    def config_command(self, argument: str = "") -> bool:
        """`/config`: the merged settings and where each came from; `/config reload`
        reads the files again and applies them; `/config edit` (the TUI opens the
        editor itself) names the user config file, created with a skeleton if missing."""
        from rift.config import ensure_user_config, load_config, unreadable_config_files
        from rift.config_sources import settings_sources

        agent = self._agent
        if argument in ("edit", "open"):
            path, created = ensure_user_config(agent.config)
            made = " (just created, with commented examples)" if created else ""
            agent.emit(
                Info(
                    f"the user config is {path}{made}: edit it in your editor, then /config"
                    " reload (only the terminal UI opens an editor itself)"
                )
            )
            return True
        if argument == "reload":
            if self._refused_busy():
                return False
            if problems := unreadable_config_files(os.environ, agent.config.cwd):
                for problem in problems:  # fail closed: the running settings stay whole
                    agent.emit(Warning(problem.replace("; ignoring that file", "")))
                agent.emit(Warning("config not reloaded: the settings in force are kept"))
                return False
            try:
                fresh = load_config(os.environ, agent.config.cwd)
            except Exception as exc:  # a broken file: say so, keep the running config
                agent.emit(Warning(f"config reload failed: {exc}"))
                return False
            self._reload(fresh)
            return True
        if argument:
            agent.emit(Warning("usage: /config [reload|edit]"))
            return False
        rows = settings_sources(agent.config, os.environ)
        width = max((len(k) for k, _, _ in rows), default=0)
        body = "\n".join(f"  {k.ljust(width)}  {v}  ({source})" for k, v, source in rows)
        agent.emit(Info(f"settings (user config: {agent.config.paths.user_config}):\n{body}"))
        return True

    def permissions_command(self, argument: str = "") -> bool:
        """`/permissions add|remove [allow|ask|deny] <rule>`: change the user config's rules
        (written atomically) and apply them now; no argument lists the rules in force."""
        agent = self._agent
        words = argument.split(maxsplit=2)
        if not words:
            listing = {**agent.gate.rules.listing(), "session": tuple(agent.gate.session_kinds)}
            body = "\n".join(f"  {k}: {', '.join(v) or '(none)'}" for k, v in listing.items())
            agent.emit(Info(f"permission rules:\n{body}"))
            return True
        action = words[0]
        kind = words[1] if len(words) > 2 and words[1] in PERMISSION_LISTS else "allow"
        rule = (words[2] if kind == words[1] else " ".join(words[1:])) if len(words) > 1 else ""
        if action not in ("add", "remove") or not rule:
            agent.emit(Warning("usage: /permissions add|remove [allow|ask|deny] <rule>"))
            return False
        from rift.core.permissions.rules import parse_rule

        if parse_rule(rule) is None:
            agent.emit(Warning(f"not a permission rule: {rule} (e.g. Bash(npm test))"))
            return False
        if self._refused_busy():
            return False
        path = agent.config.paths.user_config
        try:
            changed = _edit_user_rules(path, action, kind, rule)
        except (OSError, ValueError) as exc:
            agent.emit(Warning(f"permissions not changed: {exc}"))
            return False
        if not changed:
            agent.emit(Info(f"{kind} already {'has' if action == 'add' else 'lacks'} {rule}"))
            return True
        agent.emit(Info(f"{'added' if action == 'add' else 'removed'} {kind} rule {rule}"))
        return self.config_command("reload")

    def _reload(self, fresh: Config) -> None:
        """Apply re-read settings now: rules (this session's grants kept), hooks and the
        rest. The model, host, context and temperature stay as they run (they may come
        from flags or live switches; `/model`, `/host`, `/ctx` change them)."""
        from msgspec.structs import replace

        from rift.core.permissions.rules import Rules

        agent = self._agent
        running = agent.config
        fresh = replace(
            fresh,
            host=running.host,
            host_explicit=running.host_explicit,
            model=running.model,
            num_ctx=running.num_ctx,
            num_ctx_explicit=running.num_ctx_explicit,
            temperature=running.temperature,
        )
        gate = agent.gate
        rules = Rules.from_config(fresh.permissions, cwd=fresh.cwd, home=fresh.paths.home)
        gate.rules = rules.with_session_of(gate.rules)
        agent.ctx.post_edit_hooks = fresh.post_edit_hooks
        agent.config = fresh
        for problem in rules.warnings:
            agent.emit(Warning(problem))
        agent.emit(Info("settings reloaded (MCP servers and plugins apply after /restart)"))


def _edit_user_rules(path: Path, action: str, kind: str, rule: str) -> bool:
    """Add or remove `rule` in the user config's `permissions.<kind>`; False: no change."""
    from rift.paths import atomic_write

    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    perms = data.setdefault("permissions", {})
    if not isinstance(perms, dict):
        raise ValueError(f"{path}: 'permissions' is not an object")
    rules = perms.setdefault(kind, [])
    if not isinstance(rules, list):
        raise ValueError(f"{path}: 'permissions.{kind}' is not a list")
    if action == "add":
        if rule in rules:
            return False
        rules.append(rule)
    else:
        if rule not in rules:
            return False
        rules.remove(rule)
    atomic_write(path, json.dumps(data, indent=2) + "\n")
    return True

"""Bringing an agent up: bind the model, open or resume the session, the same for every
face. Notices met on the way are returned rather than emitted: each face decides when
they may be shown (serve must write `ready` first).
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from pathlib import Path
from socket import SOCK_STREAM
from urllib.parse import urlsplit

from msgspec import Struct, field
from msgspec.structs import replace

from rift.config.load import Config
from rift.core.conversation.confine import confine_agent, extensions_and_skills
from rift.core.conversation.owner import Conversation
from rift.core.conversation.runtime import Agent, ModelBinding, bind_model
from rift.core.sessions.loading import load_session
from rift.core.sessions.store import SessionStore, history_for
from rift.errors import ModelError, ModelNotUsable, ServerUnreachable
from rift.events import Event, History, Info, Warning
from rift.models.ollama_window import check_ollama_v1
from rift.models.registry import EMBEDDED, only_model, resolve, served_models

REFUSAL_PROBE_S = 1.0
"""How long the default host's port may take to accept or refuse before the usual connect."""


class StartOptions(Struct, frozen=True):
    """How the front end wants the session opened."""

    attached: bool = True
    """A person can answer asks (serve, TUI); False for headless runs."""
    continue_last: bool = False
    resume: Path | None = None
    contained: bool = False
    """write/edit may touch the project directory only (swarm candidates in worktrees)."""
    slot: int = 0
    """The server slot the conversation pins (llama.cpp's `id_slot`; see `Agent.slot`)."""


class Started(Struct, dict=True):
    """What a front end gets: the conversation to drive, and what to show first."""

    agent: Agent
    session_path: Path
    resumed: bool
    notices: list[Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        notes: tuple[str, ...] = ()
        if self.resumed:  # the files it touched lead the next prompt
            from rift.core.sessions.resume_note import resume_note  # resumed sessions only

            note = resume_note(self.agent.messages).strip()
            notes = (note,) if note else ()
        self.conversation = Conversation(self.agent, self.session_path, notes)

    def opening_events(self) -> list[Event]:
        """What every face shows first, in this order: the context gauge, the resumed
        conversation (`history`, when there is one) and the notices met on the way."""
        out: list[Event] = [self.agent.context_gauge()]
        if self.resumed:
            out.append(History(messages=history_for(self.agent.messages)))
        return out + self.notices


async def start_agent(
    config: Config, emit: Callable[[Event], None], options: StartOptions
) -> Started:
    """Preflight the configured model and open the session; raises ModelError on failure."""
    try:
        binding, fallback, config = await _bind_or_fall_back(config)
    except ModelError as exc:
        if config.untrusted_servers is None:
            raise
        # The front end shows only the error: say why the project's server was not used.
        raise ModelError(f"{exc}\n{config.untrusted_servers}") from exc
    notices: list[Event] = [Warning(w) for w in config.warnings] + fallback
    if binding.info.note:
        notices.append(Info(binding.info.note))
    notices += await check_ollama_v1(config, binding)
    store = SessionStore(config.paths.sessions_dir)
    path = options.resume
    if path is None and options.continue_last:
        path = store.newest(config.cwd)
        notices += [Warning(text) for text in store.set_aside]
    messages = []
    resumed = False
    if path is not None:
        loaded = load_session(path)
        messages = loaded.messages
        resumed = bool(messages)
        if loaded.notice:
            notices.append(Info(loaded.notice))
        if loaded.warning:
            notices.append(Warning(loaded.warning))
    else:
        path = store.reserve()
    approve = config.permissions.approve
    extensions, skills = extensions_and_skills(config)
    agent = Agent(
        config=config,
        binding=binding,
        emit=emit,
        messages=messages,
        attached=options.attached,
        skills=skills,
        extensions=extensions,
        slot=options.slot,
    )
    agent.approval.enabled = True if approve is None else approve
    notices += confine_agent(agent, config, contained=options.contained)
    extensions.attach(agent, attached=options.attached)
    notices += extensions.notices
    if not options.attached:
        await extensions.wait_mcp()  # a one-shot turn gets its MCP tools from the start
    # Everything imported and built so far lives until exit: moving it to the permanent
    # generation keeps it out of every later collection, the interpreter's last one
    # included (measured: bench/run.py, "-p: last reply -> exit").
    gc.freeze()
    gc.enable()  # the fast paths paused it for their imports (cli._main)
    return Started(agent=agent, session_path=path, resumed=resumed, notices=notices)


async def _bind_or_fall_back(config: Config) -> tuple[ModelBinding, list[Event], Config]:
    """The configured model or, when no host was named and nothing answers at the default,
    the embedded model (`rift[local]`), so a fresh install works on its own; without the
    extra, "cannot reach" gains the command that installs it."""
    route = resolve(config.model, config)
    may_fall_back = not config.host_explicit and route.provider_name is None
    refused = may_fall_back and route.provider_kind != EMBEDDED and await _refused(config.host)
    try:
        if refused:  # one refused connect says it: not the 1.2 s of a connect's retries
            raise ServerUnreachable(config.host, "connection refused")
        return await _bind_named_or_only(config)
    except ServerUnreachable as exc:
        if not may_fall_back:
            raise
        from rift.models import local_weights  # the embedded fallback only

        if not local_weights.available(config.paths.cache_dir):
            hint = "or run rift without a server: " + local_weights.install_command()
            raise ServerUnreachable(exc.host, exc.detail, hint=hint) from exc
    binding = await bind_model(EMBEDDED, config)
    note = (
        f"no model server at {config.host}: using the embedded model {binding.info.info.name}"
        " (small and slow on CPU; fine for small single-file tasks). For a real server start"
        ' Ollama there, or pass --host URL, set RIFT_HOST, or set "host" in the config'
    )
    return binding, [Info(note)], config


async def _bind_named_or_only(config: Config) -> tuple[ModelBinding, list[Event], Config]:
    """The configured model; with none named anywhere and the default not served, the
    server's only model, said in one line (issue 44), or a ModelNotUsable listing several."""
    try:
        return await bind_model(config.model, config), [], config
    except ModelNotUsable:
        if config.model_explicit or resolve(config.model, config).provider_name is not None:
            raise
        base_url, names = await served_models(config.model, config)
        if not names or config.model in names:
            raise
    chosen, line = only_model(names, base_url)
    if chosen is None:
        raise ModelNotUsable(line)
    config = replace(config, model=chosen)
    return await bind_model(chosen, config), [Info(line)], config


async def _refused(url: str) -> bool:
    """Whether every address of the default host refuses a connection at once ("no Ollama
    running"); a hang or another failure is left to the client's retries, which a server
    still starting up deserves."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    loop = asyncio.get_running_loop()
    try:
        found = await loop.getaddrinfo(parts.hostname or "localhost", port, type=SOCK_STREAM)
    except OSError:
        return False
    for *_, address in found:
        try:
            connecting = asyncio.open_connection(str(address[0]), port)
            _, writer = await asyncio.wait_for(connecting, REFUSAL_PROBE_S)
        except ConnectionRefusedError:
            continue
        except (OSError, TimeoutError):
            return False
        writer.close()
        return False
    return bool(found)


async def start_candidate(config: Config, emit: Callable[[Event], None], slot: int) -> Started:
    """A swarm candidate: a headless agent whose writes stay in its worktree (the project
    directory of `config`), handed down to the race so the swarm never imports the core."""
    return await start_agent(config, emit, StartOptions(attached=False, contained=True, slot=slot))

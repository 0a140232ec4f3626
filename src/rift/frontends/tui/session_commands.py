"""Slash commands that change the model binding or the conversation.

/host, /model and /ctx persist through `rift.config.persist_setting` once the
new setting has actually bound (a typo is never saved). Changing the host,
context size or temperature re-opens the current session file on a fresh
agent (`Driver.rebind`), which is also how /sessions switches conversations.
/rewind is built from `UndoJournal.undo_to_turn` plus truncating the
messages at the rewound prompt; /compact prunes old tool outputs and asks the
model for a summary (`context.prune_old_outputs` + `context.summarize`), the
same two stages the automatic compaction uses.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from rift import __version__
from rift.config import Config, persist_setting
from rift.errors import RiftError
from rift.frontends.tui.format import host_problem, parse_num_ctx

if TYPE_CHECKING:
    from rift.frontends.tui.app import RiftApp

_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


async def _bind(app: RiftApp, config: Config, resume: Path | None = None) -> None:
    """Switch to an agent on `config`; the old one stays when this fails."""
    was_offline = app.driver.agent is None
    try:
        started = await app.driver.rebind(config, resume)
    except RiftError as exc:
        raise RiftError(f"could not connect: {exc}") from exc
    await app.after_bind(started, fresh=was_offline or resume is not None)


def _saved(app: RiftApp, key: str, value: object) -> None:
    try:
        path = persist_setting(app.driver.config, key, value)
    except OSError as exc:
        app.say(f"could not save {key}: {exc.strerror or exc}", "warning")
    else:
        app.say(f"{key} = {value} (saved to {path})", "info")


# -------------------------------------------------------------- the model


async def model(app: RiftApp, arg: str) -> None:
    name = arg.strip()
    if not name:
        names, current = await _model_names(app)
        if not names:
            raise RiftError("no models found on the configured servers")
        start = names.index(current) if current in names else 0
        choice = await app.pick("Switch model", names, current=start)
        if choice is None:
            return
        name = choice
    agent = app.driver.agent
    if agent is None:
        await _bind(app, app.driver.with_config(model=name))
    elif not await agent.set_model(name):
        return  # the core already explained why ("model switch failed: …")
    else:
        app.driver.config = app.driver.with_config(model=name)
    _saved(app, "model", name)


async def _model_names(app: RiftApp) -> tuple[list[str], str]:
    agent = app.driver.agent
    if agent is not None:
        found = await agent.list_models()
        return found.models, found.current
    from rift.models.registry import list_all_models

    config = app.driver.config
    return await list_all_models(config, config.model), config.model


async def host(app: RiftApp, arg: str) -> None:
    config = app.driver.config
    if not arg:
        state = "connected" if app.driver.agent is not None else "offline"
        app.say(f"host: {config.host} ({state}) — /host URL switches")
        return
    url = arg.strip().rstrip("/")
    if not _URL.match(url):
        url = "http://" + url
    problem = host_problem(url)
    if problem:
        raise RiftError(problem)
    await _bind(app, app.driver.with_config(host=url, host_explicit=True))
    _saved(app, "host", url)


async def ctx(app: RiftApp, arg: str) -> None:
    n = parse_num_ctx(arg)
    if n is None:
        raise RiftError("usage: /ctx <n>, e.g. /ctx 32768 or /ctx 32k")
    if n < 2048:
        raise RiftError("num_ctx must be at least 2048 tokens")
    await _bind(app, app.driver.with_config(num_ctx=n, num_ctx_explicit=True))
    _saved(app, "num_ctx", n)


async def temp(app: RiftApp, arg: str) -> None:
    try:
        value = float(arg)
    except ValueError:
        raise RiftError("usage: /temp <0.0-2.0>") from None
    if not 0.0 <= value <= 2.0:
        raise RiftError("temperature must be between 0.0 and 2.0")
    await _bind(app, app.driver.with_config(temperature=value))
    app.say(f"temperature = {value} (this session)", "info")


# -------------------------------------------------------- the conversation


async def sessions(app: RiftApp, arg: str) -> None:
    from rift.core.session import SessionStore

    current = app.driver.agent.session_path if app.driver.agent is not None else None
    items = SessionStore(app.driver.config.paths.sessions_dir).list_items()
    items = [i for i in items if current is None or Path(i.path) != current]
    if not items:
        app.say("(no other saved sessions)")
        return
    labels = [
        f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(i.saved_at))}  {i.title[:60]}"
        f"  · {i.turns} turn{'s' if i.turns != 1 else ''} · {i.model}"
        for i in items
    ]
    choice = await app.pick("Resume a session", labels)
    if choice is None:
        return
    chosen = Path(items[labels.index(choice)].path)
    await app.transcript.clear_all()
    app.transcript.add_banner(__version__, app.driver.config.model, tips=False)
    await _bind(app, app.driver.config, resume=chosen)


async def save(app: RiftApp, arg: str) -> None:
    from rift.paths import atomic_write

    name = re.sub(r"[^\w.-]+", "-", arg.strip()).strip("-.")
    if not name:
        raise RiftError("usage: /save <name>")
    agent = app.require_agent()
    agent.save()
    target = app.driver.config.paths.sessions_dir / f"{name}.json"
    atomic_write(target, agent.session_path.read_bytes())
    app.say(f"session saved as {target}", "info")


async def rewind(app: RiftApp, arg: str) -> None:
    from rift.core.checkpoints import format_undo_message
    from rift.core.session import turn_starts

    agent = app.require_agent()
    try:
        n = int(arg or "1")
    except ValueError:
        raise RiftError("usage: /rewind [n]") from None
    starts = turn_starts(agent.messages)
    available = min(len(starts), agent.journal.turn)
    if n < 1:
        raise RiftError("rewind needs n ≥ 1")
    if n > available:
        raise RiftError(f"only {available} turn(s) are rewindable (turns run since rift started)")
    try:
        paths = agent.journal.undo_to_turn(agent.journal.turn - n)
    except OSError as exc:
        raise RiftError(f"rewind failed: {exc}") from exc
    del agent.messages[starts[-n] :]
    agent.save()
    await _reseed(app)
    restored = format_undo_message(paths, agent.config.cwd) if paths else "no files to restore"
    app.say(f"rewound {n} turn(s) — {restored}", "info")
    app.emit(agent.context_gauge())


async def compact(app: RiftApp, arg: str) -> None:
    from rift.core.context import prune_old_outputs, summarize

    agent = app.require_agent()
    before = agent.context_gauge().used
    app.say("compacting: summarizing earlier conversation…", "info")
    messages, pruned = prune_old_outputs(agent.messages)
    summarized = await summarize(
        agent.binding.provider,
        model=agent.binding.route.wire_model,
        num_ctx=agent.num_ctx,
        messages=messages,
    )
    if summarized == agent.messages:
        app.say("nothing to compact yet (only the current exchange)")
        return
    agent.messages[:] = summarized
    agent.save()
    after = agent.context_gauge()
    app.say(f"compacted: ~{before} → ~{after.used} tokens ({pruned} old outputs pruned)", "info")
    app.emit(after)


async def clear(app: RiftApp, arg: str) -> None:
    agent = app.require_agent()
    del agent.messages[1:]  # the system prompt stays
    agent.save()
    await app.transcript.clear_all()
    app.transcript.add_banner(__version__, agent.model, tips=False)
    app.say("conversation cleared — the session file is kept", "info")
    app.emit(agent.context_gauge())


async def _reseed(app: RiftApp) -> None:
    from rift.core.session import history_for

    agent = app.require_agent()
    await app.transcript.clear_all()
    app.transcript.add_banner(__version__, agent.model, tips=False)
    items = [(m.role, m.text) for m in history_for(agent.messages)]
    if items:
        await app.transcript.add_history(items)


def transcript_markdown(app: RiftApp) -> str:
    from rift.core.session import history_for

    agent = app.driver.agent
    if agent is None:
        return ""
    parts = [f"# rift session · {agent.model}\n"]
    for message in history_for(agent.messages):
        who = "You" if message.role == "user" else "rift"
        parts.append(f"## {who}\n\n{message.text.strip()}\n")
    return "\n".join(parts)


async def export(app: RiftApp, arg: str) -> None:
    from rift.paths import atomic_write

    text = transcript_markdown(app)
    if not text:
        raise RiftError("nothing to export yet")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    if arg:  # a path the person named: relative to the project, like every other path
        target = Path(arg).expanduser()
        if not target.is_absolute():
            target = app.driver.config.cwd / target
    else:  # never litter the repository unasked
        target = app.driver.config.paths.data_dir / "exports" / f"rift-transcript-{stamp}.md"
    atomic_write(target, text)
    app.say(f"transcript written to {target}", "info")

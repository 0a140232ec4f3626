"""Slash commands that change the model binding or the conversation.

Each is a call on the core's commands, so the undo journal carries over and `/clear`
keeps the old session resumable. /host, /model and /ctx persist once the new setting
has actually bound (a typo is never saved)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from rift import __version__
from rift.config.load import Config, persist_setting
from rift.errors import RiftError
from rift.frontends.tui.format import host_problem, parse_num_ctx

if TYPE_CHECKING:
    from rift.frontends.tui.host import CommandHost

_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


def run(app: CommandHost, name: str, arg: str) -> bool:
    """Run registry command `name` on the conversation (its own `run`); events show it."""
    from rift.core import BY_NAME

    return BY_NAME[name].run(app.require_conversation(), arg)


async def _bind(app: CommandHost, config: Config, resume: Path | None = None) -> None:
    """Open a conversation on `config` (offline → online, or another session)."""
    try:
        started = await app.driver.bind(config, resume=resume)
    except (RiftError, ValueError) as exc:
        raise RiftError(f"could not connect: {exc}") from exc
    await app.after_bind(started, fresh=True)


def _saved(app: CommandHost, key: str, value: object) -> None:
    try:
        path = persist_setting(app.driver.config, key, value)
    except OSError as exc:
        app.say(f"could not save {key}: {exc.strerror or exc}", "warning")
    else:
        app.say(f"{key} = {value} (saved to {path})", "info")


async def model(app: CommandHost, arg: str) -> None:
    name = arg.strip()
    if len(name.split()) == 2 and app.driver.conversation is not None:
        run(app, "roles", name)  # `/model ROLE NAME`: see /roles
        return
    if not name:
        names, current = await _model_names(app)
        if not names:
            raise RiftError("no models found on the configured servers")
        start = names.index(current) if current in names else 0
        choice = await app.pick("Switch model", names, current=start)
        if choice is None:
            return
        name = choice
    from rift.core import set_model

    conversation = app.driver.conversation
    if conversation is None:
        await _bind(app, app.driver.with_config(model=name))
    elif not set_model(conversation, name) or await app.driver.wait() is not True:
        return  # the core already explained why ("model switch failed: …")
    _saved(app, "model", name)


async def _model_names(app: CommandHost) -> tuple[list[str], str]:
    conversation = app.driver.conversation
    if conversation is not None:
        from rift.core import list_models

        found = await list_models(conversation)
        return found.models, found.current
    from rift.models.registry import list_all_models

    config = app.driver.config
    return await list_all_models(config, config.model), config.model


async def host(app: CommandHost, arg: str) -> None:
    config = app.driver.config
    if not arg:
        state = "connected" if app.driver.conversation is not None else "offline"
        app.say(f"host: {config.host} ({state}) — /host URL switches")
        return
    url = arg.strip().rstrip("/")
    if not _URL.match(url):
        url = "http://" + url
    problem = host_problem(url)
    if problem:
        raise RiftError(problem)
    from rift.core import set_option

    conversation = app.driver.conversation
    if conversation is None:
        await _bind(app, app.driver.with_config(host=url, host_explicit=True))
    elif not set_option(conversation, host=url) or await app.driver.wait() is not True:
        return
    _saved(app, "host", url)


async def ctx(app: CommandHost, arg: str) -> None:
    n = parse_num_ctx(arg)
    if n is None:
        raise RiftError("usage: /ctx <n>, e.g. /ctx 32768 or /ctx 32k")
    if n < 2048:
        raise RiftError("num_ctx must be at least 2048 tokens")
    from rift.core import set_option

    conversation = app.require_conversation()
    if not set_option(conversation, num_ctx=n) or await app.driver.wait() is not True:
        return
    _saved(app, "num_ctx", n)


async def temp(app: CommandHost, arg: str) -> None:
    try:
        value = float(arg)
    except ValueError:
        raise RiftError("usage: /temp <0.0-2.0>") from None
    if not 0.0 <= value <= 2.0:
        raise RiftError("temperature must be between 0.0 and 2.0")
    from rift.core import set_option

    set_option(app.require_conversation(), temperature=value)  # it says so (info)


async def sessions(app: CommandHost, arg: str) -> None:
    conversation = app.driver.conversation
    if conversation is not None:
        from rift.core import list_sessions

        items = list_sessions(conversation).items
        current: Path | None = conversation.session_path
    else:
        from rift.core import SessionStore

        items, current = SessionStore(app.driver.config.paths.sessions_dir).list_items(), None
    items = [i for i in items if current is None or Path(i.path) != current]
    if not items:
        app.say("(no other saved sessions)")
        return
    labels = [
        f"{n:>2}. {time.strftime('%Y-%m-%d %H:%M', time.localtime(i.saved_at))}  {i.title[:60]}"
        f"  · {i.turns} turn{'s' if i.turns != 1 else ''} · {i.model} · {_where(i.cwd)}"
        for n, i in enumerate(items, 1)
    ]
    if arg.strip():  # `/sessions 3`: the third of the list, without the picker
        number = arg.strip()
        if not number.isdigit() or not 1 <= int(number) <= len(items):
            raise RiftError(f"/sessions: pick a number from 1 to {len(items)}")
        chosen = Path(items[int(number) - 1].path)
    else:
        choice = await app.pick("Resume a session", labels)
        if choice is None:
            return
        chosen = Path(items[labels.index(choice)].path)
    await app.transcript.clear_all()
    app.transcript.add_banner(__version__, app.driver.config.model)
    await _bind(app, app.driver.config, resume=chosen)


async def rewind(app: CommandHost, arg: str) -> None:
    try:
        n = int(arg or "1")
    except ValueError:
        raise RiftError("usage: /rewind [n]") from None
    from rift.core import rewind as rewind_turns

    rewind_turns(app.require_conversation(), n)  # info + the shortened history, or a warning


async def compact(app: CommandHost, arg: str) -> None:
    from rift.core import compact as compact_now

    if compact_now(app.require_conversation()):
        app.say("compacting: summarizing earlier conversation…", "info")
        await app.driver.wait()


async def clear(app: CommandHost, arg: str) -> None:
    from rift.core import new_conversation

    conversation = app.require_conversation()
    previous = conversation.session_path
    if not new_conversation(conversation):
        return
    await app.transcript.clear_all()
    app.transcript.add_banner(__version__, conversation.state.model)
    kept = previous.exists()
    app.say(
        "conversation cleared — a new one starts"
        + (f"; the previous one is saved ({previous.name}), /sessions resumes it" if kept else ""),
        "info",
    )


def transcript_markdown(app: CommandHost) -> str:
    conversation = app.driver.conversation
    if conversation is None:
        return ""
    from rift.core import history

    parts = [f"# rift session · {conversation.state.model}\n"]
    for message in history(conversation):
        who = "You" if message.role == "user" else "rift"
        parts.append(f"## {who}\n\n{message.text.strip()}\n")
    return "\n".join(parts) if len(parts) > 1 else ""


async def export(app: CommandHost, arg: str) -> None:
    from rift.fs.paths import atomic_write

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


def _where(cwd: str) -> str:
    """A session's project as a person reads it: `~/code/app`, or `(unknown)`."""
    if not cwd:
        return "(unknown project)"
    home = str(Path.home())
    return "~" + cwd[len(home) :] if cwd == home or cwd.startswith(home + "/") else cwd

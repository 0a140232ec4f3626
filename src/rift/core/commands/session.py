"""The session and its turns: /clear, /rewind, /undo, /retry, /fork, /save, /share,
/sessions, /compact, /remember, /init, /btw. Those that change the conversation
start through `Owner.work`, so they keep the owner's busy rule."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rift.core.commands.base import Owner
from rift.core.conversation.upkeep import compact_now, discard_if_empty, remember, rewind_cut
from rift.core.sessions.store import SessionStore, history_for, prompt_text, save_session
from rift.events import History, Info, SessionChanged, Warning
from rift.models.base import ChatRequest, ContentDelta, Message

if TYPE_CHECKING:
    from rift.core.sessions.replay import Prompt
    from rift.events import Event, HistoryMessage

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


def history(owner: Owner) -> list[HistoryMessage]:
    """The conversation as `history` shows it."""
    return history_for(owner.agent.messages)


def replay(owner: Owner) -> list[Prompt | Event]:
    """The stored conversation as its turns' events (sessions/replay.py), to show it whole."""
    from rift.core.sessions.replay import replay as replayed  # a whole replay is rare

    return replayed(owner.agent.messages)


def undo(owner: Owner, _argument: str = "") -> bool:
    """Revert the last turn's file changes (info or warning)."""
    busy = "turn in progress — cancel it or wait before undoing"
    return owner.work(owner.agent.undo, "undo", busy_text=busy)


def rewind(owner: Owner, n: int = 1) -> bool:
    """Drop the last `n` turns from the conversation and undo their file changes."""
    return owner.work(lambda: _rewind(owner, n), "rewind")


def _rewind_line(owner: Owner, argument: str) -> bool:
    count = argument.strip() or "1"
    if not count.isdigit() or int(count) < 1:
        owner.agent.emit(Warning("usage: /rewind [n] (a number of turns)", code="bad_command"))
        return False
    return rewind(owner, int(count))


def _rewind(owner: Owner, n: int) -> bool:
    agent = owner.agent
    cut = rewind_cut(agent, n)
    if cut is None:
        return False
    start, restored = cut
    del agent.messages[start:]
    owner.save()
    agent.emit(Info(f"rewound {n} turn(s) — {restored}"))
    agent.emit(History(messages=history_for(agent.messages)))
    agent.emit(agent.context_gauge())
    return True


def new_conversation(owner: Owner, _argument: str = "") -> bool:
    """`/clear`: an empty conversation in a new session file; the old one stays resumable."""
    return owner.work(lambda: _clear(owner), "new conversation")


def _clear(owner: Owner) -> bool:
    agent = owner.agent
    owner.save()
    old = owner.session_path
    discard_if_empty(old)
    del agent.messages[1:]  # the system prompt stays
    agent.journal.clear()
    owner.interrupted = False
    owner.session_path = SessionStore(agent.config.paths.sessions_dir).reserve()
    agent.emit(SessionChanged(session=str(owner.session_path), previous=str(old)))
    agent.emit(agent.context_gauge())
    return True


def compact(owner: Owner, _argument: str = "") -> bool:
    """Start a compaction now (prune old outputs, summarize); busy while it runs."""
    return owner.work(_compact(owner), "compaction")


async def _compact(owner: Owner) -> None:
    agent = owner.agent
    before = agent.context_gauge().used
    outcome = await compact_now(agent)
    if outcome is None:
        return
    messages, pruned = outcome
    agent.messages[:] = messages
    owner.save()
    after = agent.context_gauge()
    agent.emit(Info(f"compacted: ~{before} → ~{after.used} tokens ({pruned} old outputs pruned)"))
    agent.emit(after)


def remember_fact(owner: Owner, fact: str) -> bool:
    """Save `fact` to the project memory as the `remember` tool would: gated as an edit of
    `.rift/memory.md`, so it is asked or reviewed like one."""
    if not fact.strip():
        owner.agent.emit(Warning("usage: /remember <fact>"))
        return False
    return owner.work(remember(owner.agent, fact.strip()), "remember")


def retry(owner: Owner, _argument: str = "") -> bool:
    """Run the last prompt again, its turn first rewound (files and conversation)."""
    prompts = [t for m in owner.agent.messages if (t := prompt_text(m)) is not None]
    if not prompts:
        owner.agent.emit(Warning("nothing to retry: no prompt yet"))
        return False
    if not owner.work(lambda: _rewind(owner, 1), "retry"):
        return False
    return bool(owner.submit(prompts[-1], when_busy="queue"))  # after a chained rewind


def init_agents_md(owner: Owner, argument: str = "") -> bool:
    """Have the model survey the project and write or update AGENTS.md (an edit like any other)."""
    extra = f"\n\nAlso: {argument}" if argument else ""
    return bool(owner.submit(INIT_PROMPT + extra))


def btw(owner: Owner, question: str = "") -> bool:
    """A side question, answered without tools and outside the history; allowed while busy."""
    agent = owner.agent
    if not question:
        agent.emit(Warning("/btw needs a question"))
        return False
    messages: list[Message] = [dict(m) for m in agent.messages]  # type: ignore[misc]
    messages.append({"role": "user", "content": question})
    request = ChatRequest(model=agent.model, messages=messages, num_ctx=agent.num_ctx, think=False)

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

    owner.spawn(answer())
    return True


def list_sessions(owner: Owner, _argument: str = "") -> bool:
    """The saved sessions, as a `sessions` event (the TUI offers them to resume)."""
    owner.agent.emit(owner.agent.list_sessions())
    return True


def share(owner: Owner, argument: str = "") -> bool:
    """Write the conversation as one self-contained HTML file (`/share [file]`)."""
    agent = owner.agent
    cwd = agent.config.cwd
    stem = owner.session_path.stem
    target = Path(argument).expanduser() if argument else Path(f"{stem}.html")
    if not target.is_absolute():
        target = cwd / target
    from rift.core.sessions.share import share as write_html  # html, on first use

    try:
        written = write_html(
            agent.messages, target, title=f"rift: {stem}", meta=f"model {agent.model} · {cwd}"
        )
    except OSError as exc:
        agent.emit(Warning(f"share failed: {exc}"))
        return False
    agent.emit(Info(f"wrote the transcript to {written}"))
    return True


def fork(owner: Owner, _argument: str = "") -> bool:
    """Copy the session to a new file and continue there; the original stays as it was."""

    def copy() -> bool:
        owner.save()
        old = owner.session_path
        new = SessionStore(owner.agent.config.paths.sessions_dir).reserve()
        if not _continue_in(owner, new, "fork"):
            return False
        owner.agent.emit(Info(f"forked: continuing in {new.name}; {old.name} is kept as it was"))
        return True

    return owner.work(copy, "fork")


def rename_session(owner: Owner, name: str = "") -> bool:
    """`/save NAME`: this session is saved as `NAME.json` and continues there (a
    rename: the old file goes); `--resume` and `/sessions` find it by that name."""
    from rift.core.sessions.named import clean_name

    agent = owner.agent
    clean = clean_name(name)
    if not clean:
        agent.emit(Warning("usage: /save <name>"))
        return False

    def rename() -> bool:
        old = owner.session_path
        target = agent.config.paths.sessions_dir / f"{clean}.json"
        if target == old:
            owner.save()
            agent.emit(Info(f"session saved as {target}"))
            return True
        if target.exists():
            agent.emit(Warning(f"a session named {clean} exists; choose another name"))
            return False
        if not _continue_in(owner, target, "save"):
            return False
        old.unlink(missing_ok=True)
        agent.emit(Info(f"session saved as {target}"))
        return True

    return owner.work(rename, "save")


def _continue_in(owner: Owner, target: Path, what: str) -> bool:
    """Write the conversation to `target` and move the session there (`session_changed`);
    False (and a warning naming `what`) when the write failed."""
    agent = owner.agent
    try:
        save_session(target, model=agent.model, cwd=str(agent.config.cwd), messages=agent.messages)
    except OSError as exc:
        agent.emit(Warning(f"{what} failed: {exc}"))
        return False
    old, owner.session_path = owner.session_path, target
    agent.emit(SessionChanged(session=str(target), previous=str(old)))
    return True

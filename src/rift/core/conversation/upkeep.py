"""What the owner runs on the conversation between turns: compact, remember, rewind, save.
They compute, check and report; the owner (owner.py) decides when they run and alone
applies a change to the messages.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rift.core.context.budget import prune_old_outputs, summarize
from rift.core.sessions.store import save_session, turn_starts, user_turn_count
from rift.errors import RiftError, ToolError
from rift.events import Done, Info, Warning
from rift.fs.checkpoints import format_undo_message

if TYPE_CHECKING:
    from rift.core.conversation.runtime import Agent
    from rift.models.base import Message


async def compact_now(agent: Agent) -> tuple[list[Message], int] | None:
    """The conversation pruned and summarized, with how many outputs were pruned; None (and
    a notice) when there is nothing to compact or the summary failed."""
    try:
        messages, pruned = prune_old_outputs(agent.messages)
        summarized = await summarize(
            agent.binding.provider,
            model=agent.binding.route.wire_model,
            num_ctx=agent.num_ctx,
            messages=messages,
        )
    except RiftError as exc:
        agent.emit(Warning(f"compaction failed: {exc}"))
        return None
    if summarized == agent.messages:
        agent.emit(Info("nothing to compact yet (only the current exchange)"))
        return None
    return summarized, pruned


async def remember(agent: Agent, fact: str) -> None:
    """Save `fact` through the `remember` tool's own rules (caps, duplicates, the gate)."""
    from rift.tools.remember import TOOL  # late: the tool is loaded only when used

    refusals = agent.gate.refusals
    try:
        output = await TOOL.run({"fact": fact}, agent.ctx)
    except ToolError as exc:
        agent.emit(Warning(f"not remembered: {exc}"))
        return
    if output.ok:
        agent.emit(Info(output.text))
    elif agent.gate.refusals > refusals:
        agent.emit(Warning("not remembered: the change to the memory file was rejected"))
    else:
        agent.emit(Warning(f"not remembered: {output.text}"))


def rewind_cut(agent: Agent, n: int) -> tuple[int, str] | None:
    """Undo the file changes of the last `n` turns; the index their messages start at and
    the line that says what was restored, or None (and a warning) when they cannot be."""
    starts = turn_starts(agent.messages)
    available = min(len(starts), agent.journal.turn)
    if n < 1 or n > available:
        only = f"only {available} turn(s) can be rewound (turns run since rift started)"
        agent.emit(Warning(only if n >= 1 else "rewind needs n ≥ 1"))
        return None
    try:
        paths = agent.journal.undo_to_turn(agent.journal.turn - n)
    except OSError as exc:
        agent.emit(Warning(f"rewind failed: {exc}"))
        return None
    restored = format_undo_message(paths, agent.config.cwd) if paths else "no files to restore"
    return starts[-n], restored


def save(agent: Agent, path: Path) -> None:
    """Write the session atomically. A conversation with no user message is not saved,
    so opening rift and quitting leaves nothing for `--continue` to pick; but a saved one
    rewound to nothing is, or resuming it would bring back the turns it dropped."""
    if user_turn_count(agent.messages) == 0 and not _has_content(path):
        return
    try:
        save_session(path, model=agent.model, cwd=str(agent.config.cwd), messages=agent.messages)
    except OSError as exc:
        agent.emit(Warning(f"session save failed: {exc}"))


def discard_if_empty(path: Path) -> None:
    """Remove a reserved session file that never received a conversation."""
    try:
        if path.stat().st_size == 0:
            path.unlink()
    except OSError:
        pass


def _has_content(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def cancelled_before_start(agent: Agent, kind: str) -> Done | None:
    """Work cancelled before it ran ends as a cancel would: a turn with `warning` and a
    cancelled `done` (its reviews closed), anything else with its own warning."""
    if kind != "turn":
        agent.emit(Warning(f"{kind} cancelled"))
        return None
    agent.broker.close_reviews()
    agent.emit(Warning("turn cancelled"))
    done = Done(outcome="cancelled", reason="turn cancelled")
    agent.emit(done)
    return done

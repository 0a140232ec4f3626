"""Turning what a person typed into what the model reads (`/skill:name task`, `@path`
mentions, finished tasks' notes), once per prompt in the owner, so every face expands the
same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct

from rift.core.conversation.refusal import Refusal
from rift.events import Info, TaskFinished, Warning
from rift.text.slash import parse_command

if TYPE_CHECKING:
    from rift.core.conversation.runtime import Agent


class Prepared(Struct, frozen=True):
    """A prompt ready for the model: `text` as sent, `words` as the person typed them."""

    text: str
    words: str
    images: tuple[str, ...] = ()


def prepare(agent: Agent, text: str, *, vision: bool) -> Prepared | Refusal:
    """Expand a skill invocation and `@path` mentions; a refusal (and a warning) for an
    unknown skill. Problems with mentions are warnings; the prompt still goes."""
    from rift.core.context.mentions import expand  # with the first prompt, not at start

    invocation = parse_command(text, names=())  # only `/skill:name task` expands here
    if invocation is not None:
        skill = agent.skills.get(invocation.name)
        if skill is None:
            said = f"unknown skill '{invocation.name}'"
            agent.emit(Warning(said, code="unknown_skill"))
            return Refusal("unknown_skill", said)
        text = skill.expand(invocation.argument)
    expanded = expand(text, agent.config.cwd, agent.gate.check_read, vision=vision)
    for problem in expanded.problems:
        agent.emit(Warning(problem))
    if expanded.attached:
        agent.emit(Info("attached: " + ", ".join(expanded.attached)))
    return Prepared(text=expanded.text, words=text, images=expanded.images)


def task_note(event: TaskFinished) -> str:
    """The note a finished background task leaves for the model's next turn."""
    status = "finished" if event.ok else "FAILED"
    preview = event.preview.strip() or "(no output)"
    return (
        f"[task notification] background task #{event.id} {status}: {event.label}\n"
        f"{preview}\n(the task tool with id {event.id} shows all of its output)"
    )

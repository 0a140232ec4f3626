"""The one reader of a slash command's text: the TUI's dispatch, ACP's prompts and the
owner's skill expansion (`/skill:name task`) all go through `parse_command`."""

from __future__ import annotations

from collections.abc import Container, Iterable

from msgspec import Struct


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
    text: str, skills: Container[str] = (), names: Iterable[str] = ()
) -> Invocation | None:
    """The command a prompt invokes, or None for text meant for the model: `/skill:name`
    always names a skill, `/name args` one of `names`, else a skill called `name`; any
    other `/…` (a path like `/etc/hosts`) is text."""
    parts = split_command(text)
    if parts is None:
        return None
    head, argument = parts
    if head.startswith("skill:"):
        return Invocation(head[len("skill:") :].strip(), argument, skill=True)
    if head in set(names):
        return Invocation(head, argument, skill=False)
    if head in skills:
        return Invocation(head, argument, skill=True)
    return None

"""Slash commands in an ACP editor: what `/` offers, and what a `/name args` prompt means.

Zed and the other ACP clients list `available_commands_update` entries when
the person types `/`, and send the chosen one back as the prompt's text
(`/name args`). rift offers its own session commands beside every skill and
plugin command; a `/…` that names none of them is ordinary text for the
model (a path like `/etc/hosts` must still reach it).
"""

from __future__ import annotations

from collections.abc import Mapping

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from rift.extend.skills import Skill, split_invocation
from rift.record import record

OWN: dict[str, str] = {
    "compact": "Summarise older turns now to free context",
    "undo": "Undo the file changes of the last turn",
    "rewind": "Drop the last turn from the conversation and undo its edits",
    "clear": "Start a fresh conversation (this one stays saved and resumable)",
}
"""rift's own session commands, by name."""


@record
class Invocation:
    """A prompt that is a command: `own` for rift's, else the text a skill expands to."""

    name: str
    argument: str
    own: bool


def available(skills: Mapping[str, Skill]) -> list[AvailableCommand]:
    """rift's commands, then each skill (plugin commands are skills) with a task hint."""
    out = [AvailableCommand(name=name, description=text) for name, text in OWN.items()]
    for name, skill in sorted(skills.items()):
        if name in OWN:
            continue  # rift's own command wins the name
        hint = AvailableCommandInput(root=UnstructuredCommandInput(hint="what to apply it to"))
        out.append(AvailableCommand(name=name, description=skill.description, input=hint))
    return out


def parse(text: str, skills: Mapping[str, Skill]) -> Invocation | None:
    """The command a prompt invokes (`/name args` or `/skill:name args`), or None for text."""
    classic = split_invocation(text)
    if classic is not None:
        return Invocation(classic[0], classic[1], own=False)
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, argument = stripped[1:].partition(" ")
    name, _, more = name.partition("\n")
    argument = (more + " " + argument).strip()
    if name in OWN:
        return Invocation(name, argument, own=True)
    if name in skills:
        return Invocation(name, argument, own=False)
    return None

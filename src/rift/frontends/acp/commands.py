"""Slash commands in an ACP editor: what `/` offers, and what a `/name args` prompt means.

A `/…` that names no command is ordinary text for the model (`/etc/hosts` must reach it)."""

from __future__ import annotations

from collections.abc import Mapping

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from rift.core import Command, Invocation, for_face, parse_command
from rift.extend.skills import Skill

OWN: tuple[Command, ...] = for_face("acp")
"""rift's own session commands (core/commands/), in the registry's order."""


def available(skills: Mapping[str, Skill]) -> list[AvailableCommand]:
    """rift's commands, then each skill (plugin commands are skills) with a task hint."""
    out = [
        AvailableCommand(name=spec.name, description=spec.help, input=_hint(spec.args))
        for spec in OWN
    ]
    own = {spec.name for spec in OWN}
    for name, skill in sorted(skills.items()):
        if name in own:
            continue  # rift's own command wins the name
        hint = _hint("what to apply it to")
        out.append(AvailableCommand(name=name, description=skill.description, input=hint))
    return out


def _hint(text: str) -> AvailableCommandInput | None:
    """What the editor shows while the arguments are typed (`/swarm <task> [--models …]`)."""
    return AvailableCommandInput(root=UnstructuredCommandInput(hint=text)) if text else None


def parse(text: str, skills: Mapping[str, Skill]) -> Invocation | None:
    """The command a prompt invokes (`/name args` or `/skill:name args`), or None for text."""
    return parse_command(text, skills, [c.name for c in OWN])

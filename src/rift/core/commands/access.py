"""What a face passes through to the runtime without starting work: answers to asks and
reviews, this session's grants, the editor's services, listings, trust. None changes
whose turn it is, so none needs the busy rule; each is given the owner as an `Owner`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rift.core.commands.base import Owner

if TYPE_CHECKING:
    from rift.events import ContextGauge, Models, Sessions
    from rift.tools.services import EditorFiles, EditorTerminal


def answer(owner: Owner, ask_id: int, text: str) -> bool:
    return owner.agent.broker.answer(ask_id, text)


def decide(owner: Owner, review_id: int, apply: bool, content: str | None) -> bool:
    return owner.agent.broker.decide(review_id, apply, content)


def set_edit_review(owner: Owner, on: bool) -> None:
    """Writes come as `edit_review` (serve after hello, the TUI) rather than asks."""
    owner.agent.broker.edit_review = on


def deny_for_session(owner: Owner, tool: str) -> None:
    """The person chose "always deny": `tool` is refused for the rest of the session."""
    owner.agent.gate.deny_for_session(tool)


def allow_for_session(owner: Owner, *tools: str) -> None:
    """Let these tools run unasked for the rest of the session (the TUI review's "allow edits
    for this session"; bash keeps asking unless named)."""
    owner.agent.gate.allow_for_session(*tools)


def delegate(
    owner: Owner, *, files: EditorFiles | None = None, terminal: EditorTerminal | None = None
) -> None:
    """Hand the tools a face's services (ACP: the editor's files and terminal); None: their own."""
    services = owner.agent.ctx.services
    services.files, services.terminal = files, terminal


def offer_trust(owner: Owner) -> None:
    """The project's plugins, hooks and MCP servers ask once (no wait)."""
    owner.agent.offer_trust()


def context_gauge(owner: Owner) -> ContextGauge:
    return owner.agent.context_gauge()


def list_sessions(owner: Owner) -> Sessions:
    return owner.agent.list_sessions()


async def list_models(owner: Owner) -> Models:
    return await owner.agent.list_models()


def permission_rules(owner: Owner) -> dict[str, tuple[str, ...]]:
    """The rules in force (`/permissions`): the config's lists with the rules granted
    in this session, and under `session` the tools allowed for the rest of it."""
    gate = owner.agent.gate
    return {**gate.rules.listing(), "session": tuple(sorted(gate.session_kinds))}

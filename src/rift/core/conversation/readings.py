"""What a face may read or pass through without changing whose turn it is.

`Conversation` (owner.py) inherits these: the model's name and window, the
approval mode's flags, the skills, the rules, answers to asks and reviews. None
of them starts work or edits the messages, so none of them needs the owner's
busy rule; keeping them here leaves owner.py to the state it owns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rift.core.sessions.store import history_for

if TYPE_CHECKING:
    from rift.config.load import Config
    from rift.core.conversation.runtime import Agent
    from rift.core.sessions.replay import Prompt
    from rift.events import ContextGauge, Event, HistoryMessage, Models, Sessions
    from rift.extend.skills import Skill
    from rift.tools.services import EditorFiles, EditorTerminal


class Readings:
    """Read-only views and pass-throughs to the runtime, shared by every face."""

    _agent: Agent

    @property
    def model(self) -> str:
        return self._agent.model

    @property
    def num_ctx(self) -> int:
        return self._agent.num_ctx

    @property
    def approve(self) -> bool:
        return self._agent.approval.enabled

    @property
    def mode(self) -> str:
        """The approval mode (permissions/gate.py MODES); `approve` is its serve-protocol flag."""
        return self._agent.approval.mode

    @property
    def skills(self) -> dict[str, Skill]:
        return self._agent.skills

    @property
    def config(self) -> Config:
        return self._agent.config

    @property
    def edit_review(self) -> bool:
        """Writes come as `edit_review` (serve after hello, the TUI) rather than asks."""
        return self._agent.broker.edit_review

    @edit_review.setter
    def edit_review(self, on: bool) -> None:
        self._agent.broker.edit_review = on

    @property
    def sees(self) -> bool:
        """The model reports vision: images in a prompt can reach it (as `run_turn` decides)."""
        binding = self._agent.binding
        return binding.route.traits.vision and binding.info.vision

    def history(self) -> list[HistoryMessage]:
        return history_for(self._agent.messages)

    def replay(self) -> list[Prompt | Event]:
        """The stored conversation as its turns' events (sessions/replay.py), to show it whole."""
        from rift.core.sessions.replay import replay  # a whole replay is rare: load then

        return replay(self._agent.messages)

    def context_gauge(self) -> ContextGauge:
        return self._agent.context_gauge()

    def list_sessions(self) -> Sessions:
        return self._agent.list_sessions()

    async def list_models(self) -> Models:
        return await self._agent.list_models()

    def permissions(self) -> dict[str, tuple[str, ...]]:
        """The rules in force (`/permissions`): the config's lists with the rules granted
        in this session, and under `session` the tools allowed for the rest of it."""
        gate = self._agent.gate
        return {**gate.rules.listing(), "session": tuple(sorted(gate.session_kinds))}

    def deny_for_session(self, tool: str) -> None:
        """The person chose "always deny": `tool` is refused for the rest of the session."""
        self._agent.gate.deny_for_session(tool)

    def allow_for_session(self, *tools: str) -> None:
        """Let these tools run unasked for the rest of the session (the TUI's review
        offers "allow edits for this session"; bash keeps asking unless named)."""
        self._agent.gate.allow_for_session(*tools)

    def delegate(
        self, *, files: EditorFiles | None = None, terminal: EditorTerminal | None = None
    ) -> None:
        """Hand the tools a front end's services (ACP: the editor's buffers and terminal);
        None leaves the tools on the disk and their own shell."""
        services = self._agent.ctx.services
        services.files, services.terminal = files, terminal

    def answer(self, ask_id: int, text: str) -> bool:
        return self._agent.broker.answer(ask_id, text)

    def decide(self, review_id: int, apply: bool, content: str | None) -> bool:
        return self._agent.broker.decide(review_id, apply, content)

    def offer_trust(self) -> None:
        self._agent.offer_trust()

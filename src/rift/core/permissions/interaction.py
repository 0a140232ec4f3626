"""The interaction broker: how the core asks a person something without knowing who.

An `ask` or an `edit_review` becomes an event with a fresh id (one counter for both,
never repeating, so a client keeps one map) and a future the face resolves. Whatever is
never answered resolves to None, and every caller treats None as "deny": a
dropped reply, a closed stdin or a cancelled turn can only ever refuse.

Ask texts and a review's tool and path often come from a repository (hook
commands, plugin names, MCP definitions, file names), and a raw `\r\x1b[2K`
in one would let it repaint a trust question as a harmless one. So every
front end gets them here with control characters shown as visible escapes
(`visible`); an answer naming a choice as shown maps back to the real choice.
A review's old/new text is file content the reviewer edits and sends back, so
it is passed through unchanged.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

from msgspec import Struct

from rift.core.permissions.choices import ask_options
from rift.events import Ask, AskOption, EditReview, EditReviewClosed, Event
from rift.text.hygiene import visible


class ReviewDecision(Struct, frozen=True):
    """A reviewer's verdict on a proposed write."""

    apply: bool
    content: str | None = None
    """The accepted-hunk text; None means the proposal verbatim."""


class _Pending(Struct):
    kind: str  # "ask" | "review"
    future: asyncio.Future[object]


class InteractionBroker:
    """Issues asks and reviews, matches answers to them by id, and fails safe."""

    def __init__(self, emit: Callable[[Event], None], *, attached: bool = True) -> None:
        self._emit = emit
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self.attached = attached
        """False in headless runs: nobody can answer, so nothing is ever asked."""
        self.edit_review = False
        """True after a client said it reviews edits itself (hello edit_review:true)."""

    async def ask(
        self,
        question: str,
        detail: list[str],
        choices: list[str],
        options: list[AskOption] | None = None,
    ) -> str | None:
        """Ask and wait; None when the ask was dropped or nobody is attached. `options`
        says what each choice means (permissions/choices.py; derived when absent)."""
        if not self.attached:
            return None
        ask_id, future = self._open("ask")
        shown = [visible(choice) for choice in choices]
        meant = ask_options(choices) if options is None else options
        self._emit(
            Ask(
                id=ask_id,
                question=visible(question),
                detail=[visible(line) for line in detail],
                choices=shown,
                options=[AskOption(id, o.kind, o.rule) for id, o in zip(shown, meant, strict=True)],
            )
        )
        result = await self._wait(ask_id, future)
        if not isinstance(result, str):
            return None
        if result not in choices and result in shown:
            return choices[shown.index(result)]
        return result

    async def review(
        self, tool: str, path: str, old: str, new: str, segments: list[dict[str, object]]
    ) -> ReviewDecision | None:
        """Raise an edit_review and wait for its decision; None means closed or dropped."""
        if not self.attached:
            return None
        review_id, future = self._open("review")
        self._emit(
            EditReview(
                id=review_id,
                tool=visible(tool),
                path=visible(path),
                old=old,
                new=new,
                segments=[dict(s) for s in segments],
            )
        )
        result = await self._wait(review_id, future)
        return result if isinstance(result, ReviewDecision) else None

    def answer(self, ask_id: int, text: str) -> bool:
        """Resolve a pending ask; unknown ids are ignored (returns False)."""
        return self._resolve(ask_id, "ask", text)

    def decide(self, review_id: int, apply: bool, content: str | None) -> bool:
        """Resolve a pending edit review; unknown ids are ignored (returns False)."""
        return self._resolve(review_id, "review", ReviewDecision(apply, content))

    def close_reviews(self) -> None:
        """Close every undecided review (turn over or cancelled): each gets edit_review_closed."""
        for review_id, pending in list(self._pending.items()):
            if pending.kind == "review":
                self._emit(EditReviewClosed(id=review_id))
                self._drop(review_id)

    def drop_all(self) -> None:
        """Resolve everything pending as "no answer" (stdin closed): callers deny."""
        for pending_id in list(self._pending):
            self._drop(pending_id)

    def _open(self, kind: str) -> tuple[int, asyncio.Future[object]]:
        pending_id = next(self._ids)
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self._pending[pending_id] = _Pending(kind, future)
        return pending_id, future

    async def _wait(self, pending_id: int, future: asyncio.Future[object]) -> object:
        try:
            return await future
        finally:
            self._pending.pop(pending_id, None)

    def _resolve(self, pending_id: int, kind: str, value: object) -> bool:
        pending = self._pending.get(pending_id)
        if pending is None or pending.kind != kind or pending.future.done():
            return False
        pending.future.set_result(value)
        del self._pending[pending_id]
        return True

    def _drop(self, pending_id: int) -> None:
        pending = self._pending.pop(pending_id, None)
        if pending is not None and not pending.future.done():
            pending.future.set_result(None)

"""A modal picker: ↑↓ Enter Esc over a list of choices, with optional detail lines above.

The question is shown whole and wrapped (an approval must never hide the tail of a
command), and the dialog sizes itself so its key hints stay visible at 80x24."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static

from rift.frontends.tui.widgets.activity import color_diff


def numbered(choices: Sequence[str]) -> list[str]:
    """`1. allow once`: the first nine choices carry the digit that picks them."""
    return [f"{n}. {c}" if n <= 9 else c for n, c in enumerate(choices, 1)]


class PickerScreen(ModalScreen[str | None]):
    """Choose one of `choices`; digits 1-9 pick directly."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]  # noqa: RUF012 - Textual's declared shape

    def __init__(
        self,
        question: str,
        choices: Sequence[str],
        detail: Sequence[str] = (),
        *,
        current: int = 0,
        labels: Sequence[str] | None = None,
    ) -> None:
        super().__init__(classes="picker")
        self.question = question
        self.choices = list(choices)
        """What the picker dismisses with (the core's own choice strings)."""
        self.labels = list(labels) if labels is not None else self.choices
        """What the person reads for each choice."""
        self.detail = list(detail)
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            if self.detail:
                with VerticalScroll(id="picker-detail"):
                    yield Static(color_diff(self.detail))
            with VerticalScroll(id="picker-question-box"):
                yield Static(Text(self.question, style="bold"), id="picker-question")
            yield OptionList(*numbered(self.labels), id="picker-options")
            yield Static("↑↓ choose · 1-9 or Enter select · Esc cancel", classes="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = min(self.current, len(self.choices) - 1) if self.choices else None
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[event.option_index])

    def on_key(self, event: events.Key) -> None:
        if event.key.isdigit() and 1 <= int(event.key) <= min(len(self.choices), 9):
            event.stop()
            self.dismiss(self.choices[int(event.key) - 1])

    def action_cancel(self) -> None:
        self.dismiss(None)

"""The input box and its completion palette.

Enter sends, Ctrl+J / Alt+Enter insert a newline, and a bracketed paste is inserted,
never sent; `/` at the start opens the command palette and `@word` the file palette."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from msgspec import Struct
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static, TextArea
from textual.widgets.option_list import Option

from rift.frontends.tui.mentions import complete, token_at

NEWLINE_KEYS = frozenset({"ctrl+j", "alt+enter", "shift+enter", "newline"})
PALETTE_KEYS = frozenset({"up", "down", "tab", "enter", "escape"})
PAGE_KEYS = frozenset({"pageup", "pagedown"})
EMPTY_PAGE_KEYS = frozenset({"home", "end"})
PLACEHOLDER = "Ask rift to do something…  (/ commands · @ files)"


class CommandHint(Struct, frozen=True):
    """What the palette shows for one slash command."""

    name: str
    args: str
    help: str


class PromptInput(TextArea):
    """The multi-line prompt editor."""

    BINDINGS = [  # noqa: RUF012 - Textual's declared shape
        Binding("alt+up", "history(-1)", "previous prompt", show=False),
        Binding("alt+down", "history(1)", "next prompt", show=False),
    ]

    class Submitted(Message):
        """Enter was pressed: `text` is what to send."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class PaletteKey(Message):
        """A navigation key meant for the open palette."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    class PageKey(PaletteKey):
        """A scrolling key meant for the transcript."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            highlight_cursor_line=False,
            compact=True,
            placeholder=PLACEHOLDER,
        )
        self.palette_open = False
        self.paste_filter: Callable[[str], str | None] = lambda _text: None
        """What a paste becomes instead of itself (an image path's `@mention`), or None."""
        self.prompt_history: list[str] = []
        self._history_pos: int | None = None
        self._draft = ""

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if self.palette_open and key in PALETTE_KEYS:
            self.post_message(self.PaletteKey(key))
        elif key == "enter":
            self.submit()
        elif key in NEWLINE_KEYS:
            self.insert("\n")
        elif key in PAGE_KEYS or (key in EMPTY_PAGE_KEYS and not self.text):
            self.post_message(self.PageKey(key))
        elif key == "up" and (not self.text or self._walking_from_top()):
            self.action_history(-1)
        elif key == "down" and self._history_pos is not None and self._on_last_line():
            self.action_history(1)
        else:
            return  # TextArea's own handler takes it
        event.stop()
        event.prevent_default()

    async def _on_paste(self, event: events.Paste) -> None:
        mention = self.paste_filter(event.text)
        if mention is None:
            return  # Textual goes on to TextArea's own handler (it walks the MRO)
        event.stop()
        event.prevent_default()
        self.insert(mention)
        self.focus()

    def _walking_from_top(self) -> bool:
        return self._history_pos is not None and self.cursor_location[0] == 0

    def _on_last_line(self) -> bool:
        return self.cursor_location[0] == self.document.line_count - 1

    def submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        self.clear()
        self.send_text(text)

    def send_text(self, text: str) -> None:
        """Send `text` as if typed here (history included); call from this widget's queue."""
        if not self.prompt_history or self.prompt_history[-1] != text:
            self.prompt_history.append(text)
        self._history_pos = None
        self.post_message(self.Submitted(text))

    def action_history(self, step: int) -> None:
        if not self.prompt_history:
            return
        if self._history_pos is None:
            if step > 0:
                return
            self._draft = self.text
            pos = len(self.prompt_history) - 1
        else:
            pos = self._history_pos + step
        if pos >= len(self.prompt_history):
            self._history_pos = None
            self.load_text(self._draft)
        else:
            self._history_pos = max(pos, 0)
            self.load_text(self.prompt_history[self._history_pos])
        self.move_cursor(self.document.end)


class Composer(Vertical):
    """The palette above the input; completion sources are handed in by the app."""

    def __init__(
        self,
        commands: Callable[[], Sequence[CommandHint]],
        files: Callable[[], list[str]],
        *,
        paste: Callable[[str], str | None],
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._commands = commands
        self._files = files
        self._paste = paste
        self._choices: list[str] = []
        self._kind = ""
        self._needs_arg: dict[str, bool] = {}

    def compose(self) -> ComposeResult:
        palette = OptionList(id="palette")
        palette.display = False
        palette.can_focus = False
        yield palette
        queue = Static("", id="queue")
        queue.display = False
        yield queue
        prompt = PromptInput(id="prompt")
        prompt.paste_filter = self._paste
        yield prompt

    @property
    def queue_view(self) -> Static:
        return self.query_one("#queue", Static)

    def show_queue(self, prompts: Sequence[str]) -> None:
        """The prompts waiting for the running turn to end (Esc takes back the newest)."""
        view = self.queue_view
        view.display = bool(prompts)
        text = Text()
        for n, prompt in enumerate(prompts):
            first = prompt.strip().splitlines()[0] if prompt.strip() else prompt
            text.append("\n" if n else "")
            text.append("queued: ", style="bold cyan")
            text.append(first[:200])
        text.append("  (Esc takes it back)" if prompts else "", style="dim")
        view.update(text)

    @property
    def input(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def palette(self) -> OptionList:
        return self.query_one(OptionList)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.refresh_palette()

    def refresh_palette(self) -> None:
        area = self.input
        text = area.text
        row, col = area.cursor_location
        if text.startswith("/") and not any(c.isspace() for c in text):
            self._show_commands(text[1:])
        elif (partial := token_at(area.document.get_line(row), col)) is not None:
            self._show_files(partial)
        else:
            self.close_palette()

    def _show_commands(self, prefix: str) -> None:
        hints = [h for h in self._commands() if h.name.startswith(prefix)]
        hints.sort(key=lambda h: h.name != prefix)  # an exact name wins: `/mode` is not `/model`
        self._needs_arg = {h.name: bool(h.args) and not h.args.startswith("[") for h in hints}
        options = []
        for h in hints:
            label = Text("/" + h.name, style="bold")
            if h.args:
                label.append(" " + h.args, style="cyan")
            label.append("  " + h.help, style="dim")
            options.append(Option(label))
        self._open("command", [h.name for h in hints], options)

    def _show_files(self, partial: str) -> None:
        paths = complete(partial, self._files())
        self._open("file", paths, [Option(Text("@" + p)) for p in paths])

    def _open(self, kind: str, choices: list[str], options: list[Option]) -> None:
        if not choices:
            self.close_palette()
            return
        self._kind, self._choices = kind, choices
        palette = self.palette
        palette.clear_options()
        palette.add_options(options)
        palette.highlighted = 0
        palette.display = True
        self.input.palette_open = True

    def close_palette(self) -> None:
        self.palette.display = False
        self.input.palette_open = False
        self._choices = []

    def on_prompt_input_palette_key(self, event: PromptInput.PaletteKey) -> None:
        event.stop()
        palette = self.palette
        if event.key == "escape":
            self.close_palette()
        elif event.key in ("up", "down"):
            step = -1 if event.key == "up" else 1
            current = palette.highlighted or 0
            palette.highlighted = (current + step) % max(len(self._choices), 1)
        else:
            self._accept(palette.highlighted or 0, run=event.key == "enter")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._accept(event.option_index, run=False)
        self.input.focus()

    def _accept(self, index: int, run: bool) -> None:
        if not 0 <= index < len(self._choices):
            self.close_palette()
            return
        choice, kind, area = self._choices[index], self._kind, self.input
        self.close_palette()
        if kind == "command":
            needs_arg = self._needs_arg.get(choice, False)
            area.load_text("/" + choice + (" " if needs_arg or choice.endswith(":") else ""))
            area.move_cursor(area.document.end)
            if run and not needs_arg and not choice.endswith(":"):
                area.call_later(area.submit)  # the input must send it: bubbling stops at the sender
            return
        row, col = area.cursor_location
        line = area.document.get_line(row)
        partial = token_at(line, col) or ""
        start = (row, col - len(partial) - 1)
        area.replace("@" + choice + " ", start, (row, col))

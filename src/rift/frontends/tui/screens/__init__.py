"""The TUI's modal screens: the picker and the hunk review."""

__all__: list[str] = []

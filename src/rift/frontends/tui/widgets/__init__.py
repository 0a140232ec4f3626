"""The TUI's widgets, one module each, with their stylesheets beside them."""

__all__: list[str] = []

"""Where rift's own log records go: a file, never the user's terminal.

Python's last-resort handler would print tracebacks to stderr, which in `-p` and
`--serve` is the user's screen or an editor's panel; a person already gets a one-line
warning event, and the traceback belongs in a file a bug report can attach. The file
is opened only when the first record arrives, so a clean run creates nothing.
"""

from __future__ import annotations

import logging
from pathlib import Path

FORMAT = "%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"


class _LazyFile(logging.FileHandler):
    """A FileHandler that makes its directory on first use and never raises from emit."""

    def _open(self):  # type: ignore[no-untyped-def]  # typeshed types it loosely
        Path(self.baseFilename).parent.mkdir(parents=True, exist_ok=True)
        return super()._open()

    def handleError(self, record: logging.LogRecord) -> None:
        """A log that cannot be written is dropped silently, not printed."""


def log_to_file(path: Path) -> None:
    """Send rift's warnings and errors to `path` (appending), and nothing to stderr."""
    logger = logging.getLogger("rift")
    handler = _LazyFile(path, encoding="utf-8", delay=True)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter(FORMAT))
    logger.addHandler(handler)
    logger.propagate = False

"""rift's terminal UI (Textual). Imported only when `rift` runs without -p/--serve.

`run` is the entry point `rift.cli` calls; everything Textual-related loads
from here on, so the headless and serve paths never pay for it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rift.config.load import Config
    from rift.frontends.tui.app import RiftApp
    from rift.frontends.tui.host import ChatHost, CommandHost

    _HOSTS: tuple[type[CommandHost], type[ChatHost]] = (RiftApp, RiftApp)
    """mypy proves here that the app this launcher builds is what host.py promises the
    modules it feeds (the commands, the event view, the chat screen)."""

__all__ = ["run"]

BENCH_ENV = "RIFT_TUI_READY_FILE"
"""Benchmark hook (bench/tui_startup.py), not configuration: the app writes the time of
its first painted frame (wall clock, CPU seconds) to this file, and exits."""


def run(config: Config, *, continue_last: bool = False, resume: Path | None = None) -> int:
    """Run the TUI until /quit; returns the exit status. The session choice comes as plain
    values, not `StartOptions`, so the core is not imported before the first frame."""
    from rift.frontends.tui.format import host_problem

    problem = host_problem(config.host)
    if problem:
        print(f"rift: {problem} (from --host, RIFT_HOST or the config file)", file=sys.stderr)
        return 2
    try:
        from rift.frontends.tui.app import RiftApp
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith(("textual", "rich")):
            raise
        from rift.models.local_weights import install_command

        print(
            f"rift: the terminal UI needs Textual (no module {exc.name!r}): "
            f'{install_command("tui")} — or use -p "task" for a one-shot run,'
            " --serve for editors",
            file=sys.stderr,
        )
        return 2
    ready = os.environ.get(BENCH_ENV)
    app = RiftApp(
        config,
        continue_last=continue_last,
        resume=resume,
        ready_file=Path(ready) if ready else None,
    )
    code = app.run()
    return code if isinstance(code, int) else 0

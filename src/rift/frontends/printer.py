"""Headless mode (`rift -p "task"`): the reply on stdout, tool activity on stderr.

No person is attached, so approval never blocks and an `ask` rule refuses.
With `--output-format json`, stdout carries exactly one object at the end:
`{model, reply, tools: [{name, ok}], stats, estimated_cost_usd, session, outcome, reason}`.
SIGTERM cancels the turn just as Ctrl-C does, so a running command's process group is
killed rather than orphaned; a cancelled run exits 130."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import Callable
from typing import Any, TextIO

from rift.config.load import Config
from rift.core import StartOptions, describe_call, start_agent
from rift.errors import ModelError
from rift.events import (
    Content,
    Done,
    EditDiff,
    Event,
    Info,
    ToolResult,
    ToolStart,
    Warning,
    to_plain,
)
from rift.models.attachments import Attachments

EXIT_OK, EXIT_TURN_FAILED, EXIT_STARTUP = 0, 1, 2
EXIT_STOPPED, EXIT_WRAPPED, EXIT_CANCELLED = 3, 4, 130
EXIT_CHECKS_FAIL = 5
"""Answered, but the project's checks still fail (core/loop/parts/checks.py)."""
EXIT_CODES = {
    "answered": EXIT_OK,
    "error": EXIT_TURN_FAILED,
    "stopped": EXIT_STOPPED,
    "wrapped": EXIT_WRAPPED,
    "cancelled": EXIT_CANCELLED,
}
"""The exit status says how the turn ended (`done.outcome`), so a script can tell a
failure, a stopped turn (repeated tool failures) and a cut-off one apart."""

SUMMARY_CHARS = 120
"""A tool call's summary on stderr is cut here (a long command would wrap many lines)."""


class HeadlessRenderer:
    """Turns core events into the two output streams."""

    def __init__(self, json_mode: bool, out: TextIO = sys.stdout, err: TextIO = sys.stderr):
        self.json_mode = json_mode
        self.out, self.err = out, err
        self.reply_parts: list[str] = []
        self.tools: list[dict[str, Any]] = []
        self.done: Done | None = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, Content):
            self.reply_parts.append(event.text)
            if not self.json_mode:
                self.out.write(event.text)
                self.out.flush()
        elif isinstance(event, ToolStart):
            summary = describe_call(event.tool, event.args).summary
            self._line(f"→ {event.tool} {summary[:SUMMARY_CHARS]}")
        elif isinstance(event, ToolResult):
            self.tools.append({"name": event.tool, "ok": event.ok})
            first = event.preview.splitlines()[0] if event.preview else ""
            self._line(f"{'✓' if event.ok else '✗'} {event.tool}: {first}")
        elif isinstance(event, EditDiff):
            self._line(f"  {event.path} +{event.added} -{event.removed}")
        elif isinstance(event, Warning):
            self._line(f"warning: {event.text}")
        elif isinstance(event, Done):
            self.done = event
        elif isinstance(event, Info):
            self._line(event.text)

    def _line(self, text: str) -> None:
        self.err.write(text.rstrip() + "\n")
        self.err.flush()

    @property
    def reply(self) -> str:
        return "".join(self.reply_parts)


async def _run(
    config: Config,
    prompt: str,
    renderer: HeadlessRenderer,
    options: StartOptions,
    attachments: Attachments | None = None,
) -> tuple[int, dict[str, Any]]:
    try:
        started = await start_agent(config, renderer, options)
    except ModelError as exc:
        print(f"rift: {exc}", file=sys.stderr)
        return EXIT_STARTUP, {}
    conversation = started.conversation
    for event in started.opening_events():  # the renderer shows the notices
        renderer(event)
    task = asyncio.current_task()
    _on_sigterm(task.cancel if task is not None else None)
    done: Done | None = None
    try:
        done = await conversation.run(prompt, attachments)
    except asyncio.CancelledError:  # Ctrl-C or SIGTERM: the owner cancels and saves
        if task is not None:
            task.uncancel()
    finally:
        _on_sigterm(None)
        await conversation.close()
    if done is None:  # cancelled under us, or the prompt never started a turn
        done = renderer.done or Done(outcome="cancelled", reason="turn cancelled")
    if not renderer.json_mode and renderer.reply and not renderer.reply.endswith("\n"):
        renderer.out.write("\n")
    result = {
        "model": conversation.state.model,
        "reply": renderer.reply,
        "tools": renderer.tools,
        "stats": to_plain(done.stats),
        "estimated_cost_usd": done.cost_usd,
        "session": str(conversation.session_path),
        "outcome": done.outcome,
        "reason": done.reason,
        "checks": done.checks,
    }
    code = EXIT_CODES.get(done.outcome, EXIT_TURN_FAILED)
    if code == EXIT_OK and done.checks is not None and not done.checks.get("ok"):
        code = EXIT_CHECKS_FAIL
    return code, result


def _on_sigterm(handler: Callable[[], object] | None) -> None:
    """Install (or, given None, remove) the SIGTERM handler; a no-op where unsupported."""
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # Windows
        if handler is None:
            loop.remove_signal_handler(signal.SIGTERM)
        else:
            loop.add_signal_handler(signal.SIGTERM, handler)


def run(
    config: Config,
    prompt: str,
    output_format: str,
    options: StartOptions,
    attachments: Attachments | None = None,
) -> int:
    renderer = HeadlessRenderer(json_mode=output_format == "json")
    code, result = asyncio.run(_run(config, prompt, renderer, options, attachments))
    if renderer.json_mode and result:
        print(json.dumps(result, ensure_ascii=False))
    return code

"""rift.core: the front door, and the only core import a face may use.

Front ends (serve, printer, TUI, ACP, the CLI) reach the core through these names and through
`rift.events`; everything else under `rift.core` is the core's own business and may move.
The names load lazily (module `__getattr__`), so `import rift.core` costs nothing and a face
still imports only what its path needs (`tests/test_startup_imports.py` pins that).

The core's wings, each with a README saying which file to read first:
- `conversation/`: the owner (busy, work task, messages, session), runtime, startup, tasks
- `loop/`: one turn: model calls, local-model repairs, pre-read, salvage, sub-agents
- `context/`: the token budget and compaction, system prompt, instruction files, @mentions
- `sessions/`: the session store, replay, share, trace
- `permissions/`: the gate, rules, shell command reading, credentials, asks and reviews, hunks
- `checks/`: which command tests a change, and what its run said
- `doctor/`: `rift doctor`, and the quick checks after a switch of server
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rift.core.context.budget import budget
    from rift.core.conversation.commands import (
        COMMANDS,
        CommandSpec,
        Invocation,
        everyday_wires,
        for_face,
        parse_command,
        serve_commands,
        split_command,
    )
    from rift.core.conversation.owner import Conversation
    from rift.core.conversation.refusal import Refusal
    from rift.core.conversation.startup import Started, StartOptions, start_agent, start_candidate
    from rift.core.conversation.tasks import TaskRegistry
    from rift.core.doctor.report import run_doctor
    from rift.core.permissions.choices import option_label
    from rift.core.permissions.gate import MODES
    from rift.core.permissions.hunks import preview_region, reassemble
    from rift.core.sessions.named import resolve_resume
    from rift.core.sessions.replay import Prompt
    from rift.core.sessions.store import SessionStore
    from rift.pool.scheduler import usage_lines
    from rift.tools.calls import CallDescription, describe_call

_EXPORTS: dict[str, str] = {
    "COMMANDS": "rift.core.conversation.commands",
    "CommandSpec": "rift.core.conversation.commands",
    "Invocation": "rift.core.conversation.commands",
    "everyday_wires": "rift.core.conversation.commands",
    "for_face": "rift.core.conversation.commands",
    "parse_command": "rift.core.conversation.commands",
    "serve_commands": "rift.core.conversation.commands",
    "split_command": "rift.core.conversation.commands",
    "Conversation": "rift.core.conversation.owner",
    "run_doctor": "rift.core.doctor.report",
    "Refusal": "rift.core.conversation.refusal",
    "StartOptions": "rift.core.conversation.startup",
    "Started": "rift.core.conversation.startup",
    "start_agent": "rift.core.conversation.startup",
    "start_candidate": "rift.core.conversation.startup",
    "TaskRegistry": "rift.core.conversation.tasks",
    "MODES": "rift.core.permissions.gate",
    "option_label": "rift.core.permissions.choices",
    "preview_region": "rift.core.permissions.hunks",
    "reassemble": "rift.core.permissions.hunks",
    "Prompt": "rift.core.sessions.replay",
    "SessionStore": "rift.core.sessions.store",
    "resolve_resume": "rift.core.sessions.named",
    "budget": "rift.core.context.budget",
    "usage_lines": "rift.pool.scheduler",
    "CallDescription": "rift.tools.calls",  # each tool declares it; the core lends it to faces
    "describe_call": "rift.tools.calls",
}

__all__ = [
    "COMMANDS",
    "MODES",
    "CallDescription",
    "CommandSpec",
    "Conversation",
    "Invocation",
    "Prompt",
    "Refusal",
    "SessionStore",
    "StartOptions",
    "Started",
    "TaskRegistry",
    "budget",
    "describe_call",
    "everyday_wires",
    "for_face",
    "option_label",
    "parse_command",
    "preview_region",
    "reassemble",
    "resolve_resume",
    "run_doctor",
    "serve_commands",
    "split_command",
    "start_agent",
    "start_candidate",
    "usage_lines",
]


def __getattr__(name: str) -> Any:
    """Import the module that defines `name` on first use (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rift.core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value

"""rift.core: the front door, and the only core import a face may use.

Front ends (serve, printer, TUI, ACP, the CLI) reach the core through these names and through
`rift.events`; everything else under `rift.core` is the core's own business and may move.
The names load lazily (module `__getattr__`), so `import rift.core` costs nothing and a face
still imports only what its path needs (`tests/test_startup_imports.py` pins that).

The core's wings, each with a README saying which file to read first:
- `conversation/`: the owner (busy, work task, queue, messages, session), runtime, startup,
  tasks
- `commands/`: the slash commands as objects (spec + run function), one registry by topic
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
    from rift.core.commands import BY_NAME, COMMANDS, for_face, parse_command, serve_commands
    from rift.core.commands.access import (
        allow_for_session,
        answer,
        context_gauge,
        decide,
        delegate,
        deny_for_session,
        list_models,
        list_sessions,
        offer_trust,
        permission_rules,
        set_edit_review,
    )
    from rift.core.commands.base import Command
    from rift.core.commands.config import set_approval, set_mode
    from rift.core.commands.looking import clear_plan
    from rift.core.commands.model import set_model, set_option, set_thinking
    from rift.core.commands.session import compact, history, new_conversation, replay, rewind, undo
    from rift.core.commands.swarm import merge, swarm, swarm_changes, swarm_patch, worktrees
    from rift.core.context.budget import budget
    from rift.core.conversation.owner import Conversation, ConversationState, Submitted
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
    from rift.text.slash import Invocation, split_command
    from rift.tools.calls import describe_call

_EXPORTS: dict[str, str] = {
    name: module
    for module, names in (
        ("rift.core.commands", "BY_NAME COMMANDS for_face parse_command serve_commands"),
        ("rift.core.commands.base", "Command"),
        ("rift.text.slash", "Invocation split_command"),
        ("rift.core.commands.access", "allow_for_session answer context_gauge decide delegate"),
        ("rift.core.commands.access", "deny_for_session list_models list_sessions offer_trust"),
        ("rift.core.commands.access", "permission_rules set_edit_review"),
        ("rift.core.commands.config", "set_approval set_mode"),
        ("rift.core.commands.looking", "clear_plan"),
        ("rift.core.commands.model", "set_model set_option set_thinking"),
        ("rift.core.commands.session", "compact history new_conversation replay rewind undo"),
        ("rift.core.commands.swarm", "merge swarm swarm_changes swarm_patch worktrees"),
        ("rift.core.conversation.owner", "Conversation ConversationState Submitted"),
        ("rift.core.doctor.report", "run_doctor"),
        ("rift.core.conversation.refusal", "Refusal"),
        ("rift.core.conversation.startup", "StartOptions Started start_agent start_candidate"),
        ("rift.core.conversation.tasks", "TaskRegistry"),
        ("rift.core.permissions.gate", "MODES"),
        ("rift.core.permissions.choices", "option_label"),
        ("rift.core.permissions.hunks", "preview_region reassemble"),
        ("rift.core.sessions.replay", "Prompt"),
        ("rift.core.sessions.store", "SessionStore"),
        ("rift.core.sessions.named", "resolve_resume"),
        ("rift.core.context.budget", "budget"),
        ("rift.pool.scheduler", "usage_lines"),
        ("rift.tools.calls", "describe_call"),
    )
    for name in names.split()
}

__all__ = [
    "BY_NAME",
    "COMMANDS",
    "MODES",
    "Command",
    "Conversation",
    "ConversationState",
    "Invocation",
    "Prompt",
    "Refusal",
    "SessionStore",
    "StartOptions",
    "Started",
    "Submitted",
    "TaskRegistry",
    "allow_for_session",
    "answer",
    "budget",
    "clear_plan",
    "compact",
    "context_gauge",
    "decide",
    "delegate",
    "deny_for_session",
    "describe_call",
    "for_face",
    "history",
    "list_models",
    "list_sessions",
    "merge",
    "new_conversation",
    "offer_trust",
    "option_label",
    "parse_command",
    "permission_rules",
    "preview_region",
    "reassemble",
    "replay",
    "resolve_resume",
    "rewind",
    "run_doctor",
    "serve_commands",
    "set_approval",
    "set_edit_review",
    "set_mode",
    "set_model",
    "set_option",
    "set_thinking",
    "split_command",
    "start_agent",
    "start_candidate",
    "swarm",
    "swarm_changes",
    "swarm_patch",
    "undo",
    "usage_lines",
    "worktrees",
]


def __getattr__(name: str) -> Any:
    """Import the module that defines `name` on first use (PEP 562)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rift.core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value

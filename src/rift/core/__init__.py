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
    from rift.core.commands import (
        BY_NAME,
        COMMANDS,
        Command,
        for_face,
        parse_command,
        serve_commands,
    )
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
    from rift.core.commands.config import set_approval, set_mode
    from rift.core.commands.looking import clear_plan
    from rift.core.commands.model import set_model, set_option, set_thinking
    from rift.core.commands.session import (
        compact,
        history,
        new_conversation,
        replay,
        rewind,
        undo,
    )
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
    "BY_NAME": "rift.core.commands",
    "COMMANDS": "rift.core.commands",
    "Command": "rift.core.commands",
    "for_face": "rift.core.commands",
    "parse_command": "rift.core.commands",
    "serve_commands": "rift.core.commands",
    "Invocation": "rift.text.slash",
    "split_command": "rift.text.slash",
    "allow_for_session": "rift.core.commands.access",
    "answer": "rift.core.commands.access",
    "context_gauge": "rift.core.commands.access",
    "decide": "rift.core.commands.access",
    "delegate": "rift.core.commands.access",
    "deny_for_session": "rift.core.commands.access",
    "list_models": "rift.core.commands.access",
    "list_sessions": "rift.core.commands.access",
    "offer_trust": "rift.core.commands.access",
    "permission_rules": "rift.core.commands.access",
    "set_edit_review": "rift.core.commands.access",
    "set_approval": "rift.core.commands.config",
    "set_mode": "rift.core.commands.config",
    "clear_plan": "rift.core.commands.looking",
    "set_model": "rift.core.commands.model",
    "set_option": "rift.core.commands.model",
    "set_thinking": "rift.core.commands.model",
    "compact": "rift.core.commands.session",
    "history": "rift.core.commands.session",
    "new_conversation": "rift.core.commands.session",
    "replay": "rift.core.commands.session",
    "rewind": "rift.core.commands.session",
    "undo": "rift.core.commands.session",
    "merge": "rift.core.commands.swarm",
    "swarm": "rift.core.commands.swarm",
    "swarm_changes": "rift.core.commands.swarm",
    "swarm_patch": "rift.core.commands.swarm",
    "worktrees": "rift.core.commands.swarm",
    "Conversation": "rift.core.conversation.owner",
    "ConversationState": "rift.core.conversation.owner",
    "Submitted": "rift.core.conversation.owner",
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
    "describe_call": "rift.tools.calls",
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

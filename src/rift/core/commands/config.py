"""Settings and permissions: /approve, /yolo, /mode, /permissions, /config, /add-dir.
Approval and mode apply at once (acked with `approval_changed`); a config reload and a
rule change keep the owner's busy rule."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rift.core.commands.base import Owner
from rift.core.permissions.gate import MODES
from rift.events import ApprovalChanged, Info, Warning

if TYPE_CHECKING:
    from rift.config.load import Config

PERMISSION_LISTS = ("allow", "ask", "deny")
ON_WORDS = ("", "on", "yes", "true", "1")
OFF_WORDS = ("off", "no", "false", "0")


def set_approval(owner: Owner, on: bool, *, announce: bool = True) -> None:
    """Approval on (ask) or off (auto); acked with `approval_changed` unless
    `announce` is False (serve's `hello`, whose answer is `capabilities`)."""
    owner.agent.approval.enabled = on
    if announce:
        _approval_changed(owner)


def set_mode(owner: Owner, mode: str, *, announce: bool = True) -> bool:
    """Switch the approval mode (acked unless `announce` is False); False for a name not a mode."""
    if mode not in MODES:
        return False
    owner.agent.approval.mode = mode
    if announce:
        _approval_changed(owner)
    return True


def _approval_changed(owner: Owner) -> None:
    approval = owner.agent.approval
    owner.agent.emit(ApprovalChanged(approve=approval.enabled, mode=approval.mode))


def _approve(owner: Owner, argument: str) -> bool:
    word = argument.strip().lower()
    if word not in ON_WORDS + OFF_WORDS:
        owner.agent.emit(Warning(f"usage: /approve [on|off] (not '{word}')", code="bad_command"))
        return False
    set_approval(owner, word in ON_WORDS)
    return True


def _yolo(owner: Owner, argument: str) -> bool:
    word = argument.strip().lower()
    if word not in ("", "on", "off"):
        owner.agent.emit(Warning(f"usage: /yolo [off] (not '{word}')", code="bad_command"))
        return False
    set_approval(owner, word == "off")
    return True


def _mode(owner: Owner, argument: str) -> bool:
    word = argument.strip()
    if not word:
        owner.agent.emit(Info(f"mode: {owner.agent.approval.mode} (one of {', '.join(MODES)})"))
        return True
    if not set_mode(owner, word):
        owner.agent.emit(Warning(f"usage: /mode [{'|'.join(MODES)}]", code="bad_command"))
        return False
    return True


def add_directory(owner: Owner, raw: str) -> bool:
    """Let write and edit change files under `raw` unasked for the rest of the session
    (`/add-dir`; core/permissions/roots.py); a warning when it is not a directory."""
    agent = owner.agent
    home = agent.config.paths.home.as_posix()
    text = home + raw[1:] if raw == "~" or raw.startswith("~/") else raw
    path = agent.config.cwd / text
    if not text.strip() or not path.is_dir():
        agent.emit(Warning(f"not a directory: {raw}"))
        return False
    real = agent.gate.add_root(path)
    agent.emit(Info(f"write and edit may now change files in {real} (this session)"))
    return True


def config_command(owner: Owner, argument: str = "") -> bool:
    """`/config`: the merged settings and where each came from; `reload` reads the files again
    and applies them; `edit` names the user config file (created with a skeleton if missing)."""
    from rift.config.load import ensure_user_config
    from rift.config.sources import settings_sources

    agent = owner.agent
    if argument in ("edit", "open"):
        path, created = ensure_user_config(agent.config)
        made = " (just created, with commented examples)" if created else ""
        agent.emit(
            Info(
                f"the user config is {path}{made}: edit it in your editor, then /config"
                " reload (only the terminal UI opens an editor itself)"
            )
        )
        return True
    if argument == "reload":
        return owner.work(lambda: _reload_files(owner), "config reload")
    if argument:
        agent.emit(Warning("usage: /config [reload|edit]"))
        return False
    rows = settings_sources(agent.config, os.environ)
    width = max((len(k) for k, _, _ in rows), default=0)
    body = "\n".join(f"  {k.ljust(width)}  {v}  ({source})" for k, v, source in rows)
    agent.emit(Info(f"settings (user config: {agent.config.paths.user_config}):\n{body}"))
    return True


def _reload_files(owner: Owner) -> bool:
    """Read the config files again and apply them; fail closed on a broken one."""
    from rift.config.load import load_config, unreadable_config_files

    agent = owner.agent
    if problems := unreadable_config_files(os.environ, agent.config.cwd):
        for problem in problems:  # fail closed: the running settings stay whole
            agent.emit(Warning(problem.replace("; ignoring that file", "")))
        agent.emit(Warning("config not reloaded: the settings in force are kept"))
        return False
    try:
        fresh = load_config(os.environ, agent.config.cwd)
    except Exception as exc:  # a broken file: say so, keep the running config
        agent.emit(Warning(f"config reload failed: {exc}"))
        return False
    _reload(owner, fresh)
    return True


def permissions_command(owner: Owner, argument: str = "") -> bool:
    """`/permissions add|remove [allow|ask|deny] <rule>`: change the user config's rules
    (written atomically) and apply them now; no argument lists the rules in force."""
    agent = owner.agent
    words = argument.split(maxsplit=2)
    if not words:
        listing = {**agent.gate.rules.listing(), "session": tuple(agent.gate.session_kinds)}
        body = "\n".join(f"  {k}: {', '.join(v) or '(none)'}" for k, v in listing.items())
        agent.emit(Info(f"permission rules:\n{body}"))
        return True
    action = words[0]
    kind = words[1] if len(words) > 2 and words[1] in PERMISSION_LISTS else "allow"
    rule = (words[2] if kind == words[1] else " ".join(words[1:])) if len(words) > 1 else ""
    if action not in ("add", "remove") or not rule:
        agent.emit(Warning("usage: /permissions add|remove [allow|ask|deny] <rule>"))
        return False
    from rift.config.rule_syntax import parse_rule

    if parse_rule(rule) is None:
        agent.emit(Warning(f"not a permission rule: {rule} (e.g. Bash(npm test))"))
        return False

    def change() -> bool:
        path = agent.config.paths.user_config
        try:
            changed = _edit_user_rules(path, action, kind, rule)
        except (OSError, ValueError) as exc:
            agent.emit(Warning(f"permissions not changed: {exc}"))
            return False
        if not changed:
            agent.emit(Info(f"{kind} already {'has' if action == 'add' else 'lacks'} {rule}"))
            return True
        agent.emit(Info(f"{'added' if action == 'add' else 'removed'} {kind} rule {rule}"))
        return _reload_files(owner)

    return owner.work(change, "permissions")


def _reload(owner: Owner, fresh: Config) -> None:
    """Apply re-read settings now (this session's grants kept); the model, host, context and
    temperature stay as they run, since flags or live switches may have set them."""
    from rift.config.load import keep_running_model
    from rift.core.permissions.rules import Rules

    agent = owner.agent
    running = agent.config
    fresh = keep_running_model(fresh, running)
    gate = agent.gate
    rules = Rules.from_config(fresh.permissions, cwd=fresh.cwd, home=fresh.paths.home)
    gate.rules = rules.with_session_of(gate.rules)
    agent.ctx.post_edit_hooks = fresh.post_edit_hooks
    agent.config = fresh
    for problem in rules.warnings:
        agent.emit(Warning(problem))
    agent.emit(Info("settings reloaded (MCP servers and plugins apply after /restart)"))


def _edit_user_rules(path: Path, action: str, kind: str, rule: str) -> bool:
    """Add or remove `rule` in the user config's `permissions.<kind>`; False: no change."""
    from rift.fs.paths import atomic_write

    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    perms = data.setdefault("permissions", {})
    if not isinstance(perms, dict):
        raise ValueError(f"{path}: 'permissions' is not an object")
    rules = perms.setdefault(kind, [])
    if not isinstance(rules, list):
        raise ValueError(f"{path}: 'permissions.{kind}' is not a list")
    if (rule in rules) == (action == "add"):
        return False
    if action == "add":
        rules.append(rule)
    else:
        rules.remove(rule)
    atomic_write(path, json.dumps(data, indent=2) + "\n")
    return True

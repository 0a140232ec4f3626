"""The one permission gate every write, edit, bash command and fetch passes through.

Order of decision (the serve spec's `set_approval` names the modes):

    deny rule        → refused, in every mode, with or without a user
    session denial   → refused ("always deny … this session", in every mode)
    mode "plan"      → refused (read-only: no writes, edits or bash)
    approval off     → allowed (mode "auto"; ask rules are suppressed too: all-or-nothing)
    file runs later  → asked (a .git file, hook or code-starting config the task named)
    mode accept-edits→ writes and edits allowed unless an ask rule matches; bash as in "ask"
    ask rule         → asked (allow/deny only); with no user attached, refused
    allow rule       → allowed (an allow rule must match *every* bash segment)
    session allowance→ allowed ("always allow … this session")
    no user attached → allowed (headless runs never block)
    otherwise        → an edit_review (when the client reviews edits) or an ask

Anything but an explicit yes from the person is a refusal.

Before all of that, two fixed limits on write/edit that no rule or mode lifts:
rift's own config and data directories (config.json, plugins, trust stores:
what decides the next run's rules and hooks) are never written by a tool, and
with the bwrap sandbox on, writes stay inside the project and the temp
directory, the same places sandboxed bash can write.

Then the writable roots (core/permissions/roots.py): a write or edit outside
the project and the directories the user added is refused with no person
attached and asked with one, in every approval mode, unless an allow rule
names the path. Paths arrive resolved (rift/fs/safe_fs.py), the same path the
tool then opens without following symlinks.

What only a question needs (the diff shown, the rule suggested) is imported
when the gate first asks, not at startup.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from msgspec import Struct, field

from rift.core.permissions import roots as _roots
from rift.core.permissions.choices import ask_options
from rift.core.permissions.interaction import InteractionBroker
from rift.core.permissions.network import NetworkChecks, always_choices, denied_by_user, no_user
from rift.core.permissions.rule_paths import canonical
from rift.core.permissions.rules import Rules, Verdict
from rift.tools.base import WriteVerdict

ASK_DIFF_LINES = 40


MODES = ("ask", "accept-edits", "plan", "auto")
"""Approval modes, shared by every front end (ACP session modes, serve, the TUI)."""


class Approval(Struct, dict=True):
    """The approval mode shared by the root agent, its sub-agents and every front end.
    `enabled` is serve's single flag (`set_approval`): on is "ask", off is "auto"; the two
    finer modes read as on, since something still asks or refuses in them."""

    mode: str = "ask"

    @property
    def enabled(self) -> bool:
        return self.mode != "auto"

    @enabled.setter
    def enabled(self, on: bool) -> None:
        self.mode = "ask" if on else "auto"


def _plan_mode(kind: str) -> str:
    return (
        f"plan mode is on: this {kind} was not run. Only read and search now; present"
        " the plan, and the user switches mode to carry it out."
    )


DENY_WITH_REASON = "deny: "
"""An ask answered `deny: <why>` refuses and hands the person's reason to the model."""


class PermissionGate(Struct, NetworkChecks, dict=True):
    """Implements `rift.tools.base.Gate` on top of the rule engine and the broker."""

    rules: Rules
    approval: Approval
    broker: InteractionBroker
    cwd: Path
    persist_rule: Callable[[str, bool], None] | None = None
    """Saves an "always allow '<rule>' …" answer to the user config, for this project only
    unless the second argument says everywhere; failures are ignored."""
    protected: tuple[Path, ...] = ()
    """rift's own config and data directories: never written by write/edit."""
    writable_roots: tuple[Path, ...] | None = None
    """With the sandbox on, the only directories write/edit may touch."""
    project_roots: tuple[Path, ...] = ()
    """The project and the directories the user added: write/edit outside them asks
    (refuses with no user) unless an allow rule names the path; empty = unchecked."""
    _session_kinds: set[str] = field(default_factory=set)
    refusals: int = 0
    """How many times a person said no (deny, a dismissed ask or review): the turn loop
    reads it so it never asks the model to redo what the user just refused."""
    _denied_kinds: set[str] = field(default_factory=set)

    def deny_for_session(self, tool: str) -> None:
        """Refuse `tool` from now on, whatever the mode ("always deny … this session")."""
        self._denied_kinds.add(tool)

    def confine(
        self,
        own_dirs: Sequence[Path],
        *,
        sandboxed: bool,
        added: Sequence[Path] = (),
        contained: bool = False,
    ) -> None:
        """Set the fixed write limits: `own_dirs` off limits, and with the sandbox on
        only the project, the temp directory and `added` writable; and the writable
        roots (the project and `added`) past which a write is asked. `contained` (a
        swarm candidate in its worktree) allows the project alone, sandbox or not."""
        self.protected = tuple(canonical(d, self.cwd) for d in own_dirs)
        self.writable_roots = None
        self.project_roots = _roots.writable_roots(self.cwd, () if contained else added)
        if contained:
            self.writable_roots = (canonical(self.cwd, self.cwd),)
        elif sandboxed:
            import tempfile  # here only: it loads shutil, random, bz2 and lzma

            roots = (self.cwd, Path(tempfile.gettempdir()), *added)
            self.writable_roots = tuple(canonical(r, self.cwd) for r in roots)

    def add_root(self, path: Path) -> Path:
        """Let write/edit reach `path` (a directory) unasked from now on (`/add-dir`)."""
        real = canonical(path, self.cwd)
        self.project_roots = tuple(dict.fromkeys((*self.project_roots, real)))
        if self.writable_roots is not None:
            self.writable_roots = tuple(dict.fromkeys((*self.writable_roots, real)))
        return real

    def restore_limits(self, path: Path) -> str | None:
        """Why undo must not touch `path` (the fixed limits a write meets); None if it may."""
        return self._outside_limits("restore", path)

    def _outside_limits(self, tool: str, path: Path) -> str | None:
        real = canonical(path, self.cwd)
        for own in self.protected:
            if real == own or own in real.parents:
                return (
                    f"this {tool} was refused: {path} is in rift's own configuration or data"
                    f" directory ({own}), which rift's tools never change (it decides rules,"
                    " hooks and trust); the user can edit it outside rift"
                )
        roots = self.writable_roots
        if roots is not None and not any(real == r or r in real.parents for r in roots):
            shown = ", ".join(str(r) for r in roots)
            return (
                f"this {tool} was refused: {path} is outside the places the sandbox lets"
                f" rift write ({shown})"
                if len(roots) > 1
                else f"this {tool} was refused: {path} is outside the project ({shown}),"
                " the only place this agent may write"
            )
        return None

    @property
    def session_kinds(self) -> frozenset[str]:
        """Tools the person allowed for the rest of this session ("… this session")."""
        return frozenset(self._session_kinds)

    def allow_for_session(self, *tools: str) -> None:
        self._session_kinds.update(tools)

    def authorize_tool(self, tool: str, *, plan_safe: bool) -> str | None:
        """The check every tool call passes first, built-in, MCP or plugin alike: a deny
        rule naming the tool refuses it in every mode, an "always deny" answer refuses it
        for the session, and plan mode refuses a tool rift cannot keep read-only
        (`plan_safe` False: a plugin command, an MCP tool not declared read-only).
        Built-in tools then pass their own path, command or URL checks."""
        verdict = self.rules.verdict_for_tool(tool)
        if verdict.kind == "deny":
            return f"this {tool} call was blocked by permission rule '{verdict.rule}'"
        if tool in self._denied_kinds:
            return denied_by_user(tool)
        if self.approval.mode == "plan" and not plan_safe:
            return _plan_mode(f"{tool} call")
        return None

    def check_read(self, path: Path) -> str | None:
        verdict = self.rules.verdict_for_path("read", path)
        if verdict.kind == "deny":
            return f"{path} blocked by permission rule '{verdict.rule}'"
        return None

    def check_opened(self, path: Path, info: os.stat_result) -> str | None:
        """The check on the file actually opened: a hard link to a denied file is denied."""
        from rift.core.permissions.hardlinks import hard_link_refusal

        return hard_link_refusal(self.rules, "read", path, info) if info.st_nlink > 1 else None

    async def authorize_write(
        self, tool: str, path: Path, old: str | None, new: str, *, runs_later: str = ""
    ) -> WriteVerdict:
        refusal = self._outside_limits(tool, path)
        if refusal is not None:
            return WriteVerdict(False, message=refusal)
        verdict = self.rules.verdict_for_path(tool, path)
        if verdict.kind == "deny":
            return WriteVerdict(
                False, message=f"this {tool} was blocked by permission rule '{verdict.rule}'"
            )
        if tool in self._denied_kinds:
            return WriteVerdict(False, message=denied_by_user(tool))
        mode = self.approval.mode
        if mode == "plan":
            return WriteVerdict(False, message=_plan_mode(tool))
        if self._outside_project(path) and not _names_path(verdict):
            return await self._ask_outside(tool, path, old, new)
        if runs_later and mode != "auto":
            return await self._ask_runs_later(tool, path, old, new, runs_later)
        if mode == "auto" or (mode == "accept-edits" and verdict.kind != "ask"):
            return WriteVerdict(True, content=new)
        shown = self._display(path)
        if verdict.kind == "ask":
            if not self.broker.attached:
                return WriteVerdict(False, message=no_user(verdict.rule or tool))
            question = f"Allow {tool} ('{verdict.rule}'): {shown}"
            answer = await self.broker.ask(question, self._detail(old, new), ["allow", "deny"])
            return self._write_answer(tool, path, new, answer)
        if verdict.kind == "allow" or tool in self._session_kinds or not self.broker.attached:
            return WriteVerdict(True, content=new)
        if self.broker.edit_review and not _is_binary(old):
            return await self._review(tool, shown, old or "", new)
        return await self._ask_write(tool, path, shown, old, new)

    async def authorize_bash(self, command: str) -> str | None:
        verdict = self.rules.verdict_for_bash(command)
        if verdict.kind == "deny":
            return f"command blocked by permission rule '{verdict.rule}': {command}"
        if "bash" in self._denied_kinds:
            return denied_by_user("bash")
        if self.approval.mode == "plan":
            return _plan_mode("command")
        if not self.approval.enabled:
            return None
        head = command  # whole: a clipped approval can hide `&& rm -rf …` (front ends wrap it)
        if verdict.kind == "ask":
            if not self.broker.attached:
                return no_user(verdict.rule or "Bash")
            answer = await self.broker.ask(
                f"Allow bash ('{verdict.rule}'): {head}", [], ["allow once", "deny"]
            )
            return None if answer == "allow once" else self._refused("bash", answer)
        if verdict.kind == "allow" or "bash" in self._session_kinds or not self.broker.attached:
            return None
        from rift.core.permissions.suggestions import suggest_bash_pattern

        pattern = suggest_bash_pattern(command)
        always = always_choices(pattern) if pattern else None
        choices = ["allow once", *(always or ()), "allow all bash this session", "deny"]
        options = ask_options(choices, session=choices[-2], always=always, rule=f"Bash({pattern})")
        answer = await self.broker.ask(f"Allow bash: {head}", [], choices, options)
        if answer == "allow once":
            return None
        if always and answer in always:
            self._remember(f"Bash({pattern})", everywhere=answer == always[1])
            return None
        if answer == "allow all bash this session":
            self._session_kinds.add("bash")
            return None
        return self._refused("bash", answer)

    def _outside_project(self, path: Path) -> bool:
        roots = self.project_roots
        return bool(roots) and not _roots.inside(canonical(path, self.cwd), roots)

    async def _ask_outside(self, tool: str, path: Path, old: str | None, new: str) -> WriteVerdict:
        """A write past the writable roots: refused with no person, asked with one (the
        resolved path shown), whatever the mode; "allow" lets this one change through."""
        real = canonical(path, self.cwd)
        if not self.broker.attached:
            return WriteVerdict(
                False, message=_roots.outside_message(tool, real, self.project_roots)
            )
        question = f"Allow {tool} outside the project: {real}"
        answer = await self.broker.ask(question, self._detail(old, new), ["allow", "deny"])
        return self._write_answer(tool, path, new, answer)

    async def _ask_runs_later(
        self, tool: str, path: Path, old: str | None, new: str, what: str
    ) -> WriteVerdict:
        """A file that runs code later (a .git file, a hook, a config that starts programs)
        the task named: asked in every mode but auto, whatever the allow rules; refused
        when nobody is there to ask."""
        shown = self._display(path)
        if not self.broker.attached:
            return WriteVerdict(
                False,
                message=f"this {tool} of {shown} ({what}) needs the person's yes and nobody"
                " is attached to answer; with approval off (auto) it is allowed",
            )
        question = f"Allow {tool} of {shown}, {what}?"
        answer = await self.broker.ask(question, self._detail(old, new), ["allow", "deny"])
        return self._write_answer(tool, path, new, answer)

    async def _review(self, tool: str, shown: str, old: str, new: str) -> WriteVerdict:
        from rift.core.permissions.hunks import diff_segments

        decision = await self.broker.review(tool, shown, old, new, diff_segments(old, new))
        if decision is None or not decision.apply:
            return WriteVerdict(False, message=self._refused(tool))
        content = new if decision.content is None else decision.content
        return WriteVerdict(True, content=content, partial=content != new)

    async def _ask_write(
        self, tool: str, path: Path, shown: str, old: str | None, new: str
    ) -> WriteVerdict:
        if tool == "write":
            question = f"Allow write: {shown} ({len(new.encode())} bytes)"
        else:
            question = f"Allow edit: {shown}"
        from rift.core.permissions.suggestions import suggest_edit_rule

        rule = suggest_edit_rule(path, self.cwd)
        session = f"always allow {tool} this session"
        always = always_choices(rule)
        choices = ["allow", session, *always, "deny"]
        options = ask_options(choices, session=session, always=always, rule=rule)
        answer = await self.broker.ask(question, self._detail(old, new), choices, options)
        if answer == session:
            self._session_kinds.add(tool)
            answer = "allow"
        elif answer in always:
            self._remember(rule, everywhere=answer == always[1])
            answer = "allow"
        return self._write_answer(tool, path, new, answer)

    def _write_answer(self, tool: str, path: Path, new: str, answer: str | None) -> WriteVerdict:
        if answer == "allow":
            return WriteVerdict(True, content=new)
        return WriteVerdict(False, message=self._refused(tool, answer))

    def _refused(self, kind: str, answer: str | None = None) -> str:
        self.refusals += 1
        refusal = denied_by_user(kind)
        if answer and answer.startswith(DENY_WITH_REASON):
            reason = answer[len(DENY_WITH_REASON) :].strip()
            if reason:
                refusal += f" The user's reason: {reason}"
        return refusal

    def _remember(self, rule: str, *, everywhere: bool) -> None:
        self.rules.add_allow(rule)
        if self.persist_rule is not None:
            # The live rule applies either way; persisting is best effort
            # (a read-only settings file must not cost the person their answer).
            with contextlib.suppress(OSError):
                self.persist_rule(rule, everywhere)

    def _display(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.cwd))
        except ValueError:
            return str(path)

    @staticmethod
    def _detail(old: str | None, new: str) -> list[str]:
        if _is_binary(old):
            return ["(overwriting a binary file)"]
        from rift.core.permissions.hunks import preview_diff

        return preview_diff(old or "", new, ASK_DIFF_LINES)


def _names_path(verdict: Verdict) -> bool:
    """An allow rule with a path pattern (`Edit(~/notes/**)`), not a bare `Edit`."""
    return verdict.kind == "allow" and "(" in (verdict.rule or "")


def _is_binary(text: str | None) -> bool:
    return text is not None and "\x00" in text[:8192]

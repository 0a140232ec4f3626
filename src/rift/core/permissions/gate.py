"""The one permission gate every write, edit, bash command and fetch passes through.

Order of decision (reference notes, section 5; spec `set_approval`):

    deny rule        → refused, in every mode, with or without a user
    session denial   → refused ("always deny … this session", in every mode)
    mode "plan"      → refused (read-only: no writes, edits or bash)
    approval off     → allowed (mode "auto"; ask rules are suppressed too: all-or-nothing)
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
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path

from rift.core.permissions.choices import ask_options
from rift.core.permissions.hunks import diff_segments, preview_diff
from rift.core.permissions.interaction import InteractionBroker
from rift.core.permissions.rules import (
    Rules,
    canonical,
    suggest_bash_pattern,
    suggest_edit_rule,
    url_candidates,
)
from rift.record import field, record
from rift.tools.base import WriteVerdict

ASK_DIFF_LINES = 40


MODES = ("ask", "accept-edits", "plan", "auto")
"""Approval modes, shared by every front end (ACP session modes, serve, the TUI)."""


@record(frozen=False, slots=False)
class Approval:
    """The approval mode shared by the root agent, its sub-agents and every front end.

    `enabled` is the serve protocol's single flag (`set_approval`): on is "ask",
    off is "auto"; the two finer modes read as on, since something still asks
    or refuses in them.
    """

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


def denied_by_user(kind: str) -> str:
    return (
        f"the user DENIED this {kind} action. Do not retry it; ask them how to proceed"
        " or choose another approach."
    )


def _no_user(rule: str) -> str:
    return (
        f"this action requires interactive approval (permission rule '{rule}')"
        " and no user is attached"
    )


@record(frozen=False, slots=False)
class PermissionGate:
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
    _session_kinds: set[str] = field(default_factory=set)
    refusals: int = 0
    """How many times a person said no (deny, a dismissed ask or review): the turn loop
    reads it so it never asks the model to redo what the user just refused."""
    _denied_kinds: set[str] = field(default_factory=set)

    def deny_for_session(self, tool: str) -> None:
        """Refuse `tool` from now on, whatever the mode ("always deny … this session")."""
        self._denied_kinds.add(tool)

    def confine(self, own_dirs: Sequence[Path], *, sandboxed: bool) -> None:
        """Set the fixed write limits: `own_dirs` off limits, and with the sandbox on
        only the project and the temp directory writable."""
        self.protected = tuple(canonical(d, self.cwd) for d in own_dirs)
        self.writable_roots = None
        if sandboxed:
            import tempfile  # here only: it loads shutil, random, bz2 and lzma

            roots = (self.cwd, Path(tempfile.gettempdir()))
            self.writable_roots = tuple(canonical(r, self.cwd) for r in roots)

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

    async def authorize_write(
        self, tool: str, path: Path, old: str | None, new: str
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
        if mode == "auto" or (mode == "accept-edits" and verdict.kind != "ask"):
            return WriteVerdict(True, content=new)
        shown = self._display(path)
        if verdict.kind == "ask":
            if not self.broker.attached:
                return WriteVerdict(False, message=_no_user(verdict.rule or tool))
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
                return _no_user(verdict.rule or "Bash")
            answer = await self.broker.ask(
                f"Allow bash ('{verdict.rule}'): {head}", [], ["allow once", "deny"]
            )
            return None if answer == "allow once" else self._refused("bash", answer)
        if verdict.kind == "allow" or "bash" in self._session_kinds or not self.broker.attached:
            return None
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

    async def authorize_fetch(
        self, url: str, private_address: str | None, *, approved: bool = False
    ) -> str | None:
        """None when `url` may be fetched, else the refusal message.

        `private_address` is a loopback/private/link-local address the host
        resolved to (the fetch tool checks every one): only an explicit allow
        rule lets such a fetch through, in every mode, so a prompt injection
        cannot talk a model into reading the metadata service or a local admin page.
        `approved` marks a redirect to a host the user already allowed in this call.
        """
        verdict = self.rules.verdict_for_url("fetch", url)
        if verdict.kind == "deny":
            return f"{url} blocked by permission rule '{verdict.rule}'"
        host = url_host(url)
        if private_address is not None and verdict.kind != "allow":
            return (
                f"{url} resolves to the private address {private_address}; fetch refuses local"
                f" and private networks unless an allow rule names the host, e.g. 'Fetch({host})'"
            )
        if not self.approval.enabled or approved:
            return None
        if verdict.kind == "ask":
            if not self.broker.attached:
                return _no_user(verdict.rule or "Fetch")
            answer = await self.broker.ask(
                f"Allow fetch ('{verdict.rule}'): {url}", [], ["allow once", "deny"]
            )
            return None if answer == "allow once" else denied_by_user("fetch")
        if verdict.kind == "allow" or "fetch" in self._session_kinds or not self.broker.attached:
            return None
        rule = f"Fetch({host})"
        always = always_choices(rule)
        choices = ["allow once", *always, "allow all fetch this session", "deny"]
        options = ask_options(choices, session=choices[-2], always=always, rule=rule)
        answer = await self.broker.ask(f"Allow fetch: {url}", [], choices, options)
        if answer == "allow once":
            return None
        if answer in always:
            self._remember(rule, everywhere=answer == always[1])
            return None
        if answer == "allow all fetch this session":
            self._session_kinds.add("fetch")
            return None
        return denied_by_user("fetch")

    # -------------------------------------------------------------- internals

    async def _review(self, tool: str, shown: str, old: str, new: str) -> WriteVerdict:
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
            # The live rule applies either way; persisting is best effort (reference 5.3).
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
        return preview_diff(old or "", new, ASK_DIFF_LINES)


def always_choices(rule: str) -> tuple[str, str]:
    """The two "always allow" answers for `rule`: saved for this project only (first, the
    narrower default a careless Enter lands nearer to) or for every project."""
    return (f"always allow '{rule}' in this project", f"always allow '{rule}' everywhere")


def url_host(url: str) -> str:
    """The host a `Fetch(...)` rule for `url` names (first of its URL candidates)."""
    return url_candidates(url)[0]


def _is_binary(text: str | None) -> bool:
    return text is not None and "\x00" in text[:8192]

"""The permission rule engine: `Tool(pattern)` rules in, a verdict out.

Pure apart from path canonicalisation (`os.path.realpath`), so the gate in
front of every tool and the `/permissions` display agree on one reading of the
rules. Precedence is deny > ask > allow > none;
what "none" means (prompt, or run under /yolo) is the approval gate's business.

Bash rules follow the original's segment model (split on `; & | \\n ( ) \\` $`,
deny/ask when ANY segment matches, allow only when ALL do) and go further on
the deny/ask side, where a false positive costs a prompt but a false negative
costs a deleted disk: deny and ask rules see every spelling `core/permissions/bash_forms.py`
derives (quotes and backslashes removed, assignments, keywords, wrappers and
program paths dropped, `eval`/`sh -c`/`find -exec`/`trap` strings read,
`$'\\x72m'` decoded, ...; its docstring has the list). A command whose program
name is not a plain word after quote removal (`r$()m x`, `$0 -c ...`, `/bin/r[m]`)
cannot be matched by name, so it matches every deny and ask rule for bash
(refused under a deny rule, asked under an ask rule), and the built-in rules
are tried with each of their own program names in its place.

Allow rules deliberately see only the plain segment: stripping `LD_PRELOAD=x`
or `./` off an allowed program would widen what the user approved. Deny rules
are a guard rail, not a sandbox: computed commands (`$(printf rm)`,
`base64 -d | sh`, scripts, interpreters) still get through, which is what
`permissions.sandbox` ("bwrap") and `bash_wrapper` are for.

`tests/reliability/bypass_corpus.json` holds the bypasses this engine refuses
and the chains an allow rule must not cover; `bench/reliability.py` scores it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from msgspec import Struct

from rift.config.globs import glob_regex
from rift.config.rule_syntax import TOOL_FAMILIES, Rule, parse_rule, parse_rules
from rift.core.permissions.credentials import CredentialGuard, default_roots
from rift.core.permissions.rule_paths import path_candidates, path_patterns

if TYPE_CHECKING:
    from rift.config.records import PermissionsConfig

VerdictKind = Literal["deny", "ask", "allow", "none"]
RuleList = Literal["allow", "ask", "deny"]


class Verdict(Struct, frozen=True):
    """What the rules say about one tool use; `rule` is the text that decided it."""

    kind: VerdictKind
    rule: str | None = None


NO_VERDICT = Verdict("none")

_Matcher = Callable[[Rule], bool]


# fmt: off
BUILTIN_BASH_DENY: tuple[str, ...] = (
    "sudo", "sudo *", "rm -rf /", "rm -rf /*", "rm -fr /", "rm -fr /*",
    "shutdown*", "reboot*", "halt*", "poweroff*", "mkfs*", "dd if=*of=/dev/*",
    "chmod -R 777 /", "chmod -R 777 /*", "chown -R * /",
)
# fmt: on
"""Always enforced and never listed; `rm` of / is also caught in any flag spelling."""
_BUILTIN_RULES = tuple(Rule(f"Bash({p})", "bash", p) for p in BUILTIN_BASH_DENY)


def _bash_match(pattern: str, text: str) -> bool:
    """Flat glob match; `X *` also matches the bare `X`, and `X:*` (the colon prefix
    spelling other agents document) means `X *` rather than a literal `X:`."""
    pattern = " ".join(pattern.split())
    if pattern.endswith(":*"):
        pattern = pattern[:-2].rstrip() + " *"
    if pattern.endswith(" *"):
        regex = glob_regex(pattern[:-2], path=False) + "(?: .*)?"
    else:
        regex = glob_regex(pattern, path=False)
    return re.fullmatch(regex, text, re.DOTALL) is not None


def url_candidates(url: str) -> list[str]:
    """What a URL rule is matched against: the host (and host:port when a port is
    written), the URL as written, and its normal form (scheme and host lowercased,
    default port dropped, "/" for an empty path). IPv6 literals keep their brackets."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return [url]
    from rift.net.hosts import normal_host

    host = normal_host(parts.hostname or "")
    shown = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    netloc = shown if port is None or port == default else f"{shown}:{port}"
    normal = f"{parts.scheme.lower()}://{netloc}{parts.path or '/'}"
    if parts.query:
        normal += f"?{parts.query}"
    hosts = [shown, netloc] if host else []
    return list(dict.fromkeys([*hosts, url, normal]))


_DEFAULT_CASE_INSENSITIVE = sys.platform in ("win32", "darwin")


class Rules:
    """The allow/ask/deny lists of one session, plus rules the user granted live."""

    def __init__(
        self,
        allow: Sequence[str] = (),
        ask: Sequence[str] = (),
        deny: Sequence[str] = (),
        *,
        cwd: Path,
        home: Path,
        case_insensitive: bool | None = None,
        guarded: Sequence[Path] | None = None,
    ) -> None:
        """Parse the three lists once; malformed rules become `warnings`, not errors.
        `case_insensitive` defaults to the platform's usual filesystem (Windows, macOS);
        `guarded` is the credential stores Read-denied before any rule (credentials.py):
        None means the defaults under `home`, () switches the guard off."""
        self._cwd, self._home = cwd, home
        fold = _DEFAULT_CASE_INSENSITIVE if case_insensitive is None else case_insensitive
        self._flags = re.IGNORECASE if fold else 0
        if guarded is None:
            self._guard = CredentialGuard.build(default_roots(home), cwd, fold_case=fold)
        elif guarded:
            self._guard = CredentialGuard.build(guarded, cwd, fold_case=fold)
        else:
            self._guard = CredentialGuard.off()
        self._lists: dict[RuleList, list[Rule]] = {}
        warnings: list[str] = []
        named: tuple[tuple[RuleList, Sequence[str]], ...] = (
            ("allow", allow),
            ("ask", ask),
            ("deny", deny),
        )
        for kind, texts in named:
            self._lists[kind], problems = parse_rules(texts)
            warnings += problems
        self._session: list[Rule] = []
        self.warnings: tuple[str, ...] = tuple(warnings)

    @classmethod
    def from_config(cls, perms: PermissionsConfig, *, cwd: Path, home: Path) -> Rules:
        """Rules from the merged config's permissions section (its credential guard included)."""
        guarded: tuple[Path, ...] = ()
        if not perms.allow_credentials:
            guarded = default_roots(home, perms.own_dirs)
        return cls(perms.allow, perms.ask, perms.deny, cwd=cwd, home=home, guarded=guarded)

    def add_allow(self, rule: str) -> str | None:
        """Grant a session allow rule ("always allow"); returns a warning if malformed."""
        parsed = parse_rule(rule)
        if parsed is None:
            return f"ignoring malformed permission rule: {rule}"
        if parsed not in self._session:
            self._session.append(parsed)
        return None

    def with_session_of(self, previous: Rules) -> Rules:
        """These rules plus the live grants of `previous` (a config reload keeps the
        "always allow" answers given in this session)."""
        self._session = list(previous._session)
        return self

    def listing(self) -> dict[str, tuple[str, ...]]:
        """Rule texts for `/permissions`: session grants included, built-ins hidden."""
        allow = [r.text for r in self._lists["allow"]] + [r.text for r in self._session]
        return {
            "allow": tuple(dict.fromkeys(allow)),
            "ask": tuple(r.text for r in self._lists["ask"]),
            "deny": tuple(r.text for r in self._lists["deny"]),
        }

    def verdict_for_path(self, tool: str, path: Path) -> Verdict:
        """Verdict for a path tool (edit, write, read, ls, grep, glob, outline).

        `path` is what the tool will open, relative to cwd or absolute; it is
        canonicalised here, so `..` and symlinks cannot step around a rule.
        """
        candidates = path_candidates(path, self._cwd)
        verdict = self._decide(tool, lambda rule: self._path_matches(rule, candidates), ("deny",))
        if verdict.kind == "none" and tool.lower() in TOOL_FAMILIES["read"]:
            verdict = self._guarded(tool, [candidates[-1]])
        if verdict.kind != "none":
            return verdict
        return self._decide(
            tool, lambda rule: self._path_matches(rule, candidates), ("ask", "allow")
        )

    def denied_globs(self, tool: str) -> list[tuple[str, str]]:
        """(rule text, absolute glob) for each deny rule with a path that covers `tool`, and
        for each credential store: what core/permissions/hardlinks.py searches for the
        other names of a hard-linked file."""
        found = [
            (rule.text, pattern)
            for rule in self._lists["deny"]
            if rule.pattern is not None and rule.covers(tool)
            for pattern in path_patterns(rule.pattern, self._cwd, self._home)
            if pattern.startswith("/")
        ]
        if tool.lower() in TOOL_FAMILIES["read"]:
            found += [(f"Read({root}/**)", f"{root}/**") for root in self._guard.roots]
        return found

    def _path_matches(self, rule: Rule, candidates: Sequence[str]) -> bool:
        """A relative pattern meets only the project-relative form and an absolute one
        only the absolute form: `Edit(**/*.py)` is the project's `.py` files, not every
        `.py` on disk (seen: it let `-p` write `../glob_escape.py`). A deny rule still
        meets both forms, so a relative deny keeps covering paths outside the project."""
        broad = rule in self._lists["deny"]
        return any(
            re.fullmatch(glob_regex(p, path=True), c, re.DOTALL | self._flags)
            for p in path_patterns(rule.pattern or "", self._cwd, self._home)
            for c in candidates
            if broad or p.startswith("/") == c.startswith("/")
        )

    def _guarded(self, tool: str, reals: Iterable[str]) -> Verdict:
        """The credential guard's deny for the first guarded path the user did not lift.

        Lifting takes an allow rule of the user's own config (a project cannot add
        allow rules) that covers `tool` and names the path; session grants do not count.
        """
        for real in reals:
            rule = self._guard.rule_for(real)
            if rule is None:
                continue
            lifted = any(
                r.pattern is not None and r.covers(tool) and self._path_matches(r, [real])
                for r in self._lists["allow"]
            )
            if not lifted:
                return Verdict("deny", rule)
        return NO_VERDICT

    def verdict_for_tool(self, tool: str) -> Verdict:
        """A deny rule that names `tool` bare (`Greet`, `srv_echo`, `Read` for the read
        family): it refuses every call of the tool, whatever its arguments. Only deny:
        a bare ask or allow rule is decided by the tool's own check, with its subject."""
        return self._decide(tool, lambda rule: False, ("deny",))

    def verdict_for_text(self, tool: str, candidates: Sequence[str]) -> Verdict:
        """Verdict for any other tool whose subject (a URL, an argument) is flat-globbed."""
        return self._decide(
            tool, lambda rule: any(_bash_match(rule.pattern or "", c) for c in candidates)
        )

    def verdict_for_url(self, tool: str, url: str) -> Verdict:
        """Verdict for a URL tool (fetch): `Fetch(domain)`, `Fetch(*.domain)` or a URL glob,
        read by host (rift/net/hosts.py): a path never satisfies a domain rule."""
        from rift.net.hosts import parse_url, rule_matches

        target = parse_url(url)
        if target is None:
            return self.verdict_for_text(tool, [url])
        return self._decide(
            tool, lambda rule: rule_matches(rule.pattern or "", target, _bash_match)
        )

    def names_url_host(self, tool: str, url: str) -> str | None:
        """The user's allow rule that names `url`'s host exactly (no wildcard), or None.
        Only such a rule, from the config (not a live "always allow"), lifts fetch's
        refusal of a private address: a wildcard or a yes to a question never does."""
        from rift.net.hosts import names_exactly, parse_url

        target = parse_url(url)
        if target is None or self.verdict_for_url(tool, url).kind == "deny":
            return None
        rules = [r for r in self._lists["allow"] if r.covers(tool) and r.pattern]
        return next((r.text for r in rules if names_exactly(r.pattern or "", target)), None)

    def verdict_for_bash(self, command: str) -> Verdict:
        """Verdict for a shell command: built-ins, then deny/ask on ANY segment form,
        then allow only when EVERY plain segment is allowed."""
        # Imported on the first shell command: ~30 regexes and a lexer that a run
        # without bash never needs (bench/run.py, spawn -> first request).
        from rift.core.permissions.bash_forms import (
            OPAQUE,
            TOO_COMPLEX,
            command_forms,
            removes_root,
            split_bash_segments,
        )

        segments = split_bash_segments(command)
        forms = command_forms(command)
        if TOO_COMPLEX in forms:
            return Verdict("deny", "Bash(<nested too deeply to check>)")
        opaque = [form.removeprefix(OPAQUE) for form in forms if form.startswith(OPAQUE)]
        for rule in _BUILTIN_RULES:
            pattern = rule.pattern or ""
            program, _, needs = pattern.partition(" ")
            # `sudo *` would match any computed program named sudo: only rules that also
            # constrain the arguments (`rm -rf /`, `dd if=*of=/dev/*`) are tried this way.
            named = [f"{program} {args}" for args in opaque] if needs.strip("* ") else []
            if any(_bash_match(pattern, form) for form in (*forms, *named)):
                return Verdict("deny", rule.text)
        if any(removes_root(form) for form in (*forms, *(f"rm {args}" for args in opaque))):
            return Verdict("deny", "Bash(rm -rf /)")
        # The raw words keep `$HOME/…`, which the forms splice apart.
        credential_paths = self._guard.paths_in_command((command, *forms), self._home)
        guarded = self._guarded("read", credential_paths)
        if guarded.kind == "deny":
            return guarded
        restricted = self._decide(
            "bash",
            lambda rule: any(_bash_match(rule.pattern or "", f) for f in forms),
            kinds=("deny", "ask"),
        )
        if opaque and restricted.kind != "deny":
            computed = self._decide("bash", lambda rule: True, kinds=("deny", "ask"))
            if computed.kind == "deny" or (computed.kind == "ask" and restricted.kind == "none"):
                why = "applied because the program name is computed, not a plain word"
                return Verdict(computed.kind, f"{computed.rule}, {why}")
        return restricted if restricted.kind != "none" else self._bash_allowed(segments)

    def _bash_allowed(self, segments: list[str]) -> Verdict:
        """Allow only if a bare `Bash` rule exists or every plain segment is allowed."""
        allowing = [r for r in (*self._lists["allow"], *self._session) if r.covers("bash")]
        bare = next((r for r in allowing if r.pattern is None), None)
        if bare is not None:
            return Verdict("allow", bare.text)
        decided: list[Rule] = []
        for segment in segments:
            rule = next((r for r in allowing if _bash_match(r.pattern or "", segment)), None)
            if rule is None:
                return NO_VERDICT
            decided.append(rule)
        return Verdict("allow", decided[0].text) if decided else NO_VERDICT

    def _decide(
        self,
        tool: str,
        matches: _Matcher,
        kinds: tuple[RuleList, ...] = ("deny", "ask", "allow"),
    ) -> Verdict:
        """deny > ask > allow > none over the rules covering `tool`."""
        for kind in kinds:
            rules = self._lists[kind] + (self._session if kind == "allow" else [])
            for rule in rules:
                if rule.covers(tool) and (rule.pattern is None or matches(rule)):
                    return Verdict(kind, rule.text)
        return NO_VERDICT


def read_allowed(perms: PermissionsConfig, *, cwd: Path, home: Path) -> Callable[[Path], bool]:
    """The Read rules as a predicate, for what rift reads into a prompt itself (skills,
    personas) before an agent and its gate exist."""
    rules = Rules.from_config(perms, cwd=cwd, home=home)
    return lambda path: rules.verdict_for_path("read", path).kind != "deny"

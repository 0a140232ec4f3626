"""The gate's network checks: `fetch` per hop and `web_search` per query.

`PermissionGate` (gate.py) inherits these. Rules and the person's answer are decided on
the normalised host before any name is resolved (a DNS query can carry a secret), and
a private or link-local address is refused unless an exact user rule names it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from rift.core.permissions.choices import ask_options
from rift.core.permissions.rules import url_candidates

if TYPE_CHECKING:
    from rift.core.permissions.interaction import InteractionBroker
    from rift.core.permissions.rules import Rules


def denied_by_user(kind: str) -> str:
    return (
        f"the user DENIED this {kind} action. Do not retry it; ask them how to proceed"
        " or choose another approach."
    )


def no_user(rule: str) -> str:
    return (
        f"this action requires interactive approval (permission rule '{rule}')"
        " and no user is attached"
    )


def always_choices(rule: str) -> tuple[str, str]:
    """The two "always allow" answers for `rule`: saved for this project only (first, the
    narrower default a careless Enter lands nearer to) or for every project."""
    return (f"always allow '{rule}' in this project", f"always allow '{rule}' everywhere")


def url_host(url: str) -> str:
    """The host a `Fetch(...)` rule for `url` names (first of its URL candidates)."""
    return url_candidates(url)[0]


class _ApprovalMode(Protocol):
    """What the network checks read of the gate's approval mode (gate.Approval)."""

    @property
    def enabled(self) -> bool: ...


class NetworkChecks:
    """fetch and web_search decisions; mixed into `PermissionGate`."""

    rules: Rules
    broker: InteractionBroker
    _session_kinds: set[str]
    _denied_kinds: set[str]

    if TYPE_CHECKING:
        approval: _ApprovalMode

        def _refused(self, kind: str, answer: str | None = None) -> str: ...
        def _remember(self, rule: str, *, everywhere: bool) -> None: ...

    async def authorize_fetch(
        self, url: str, private_address: str | None, *, approved: bool = False
    ) -> str | None:
        """None when `url` may be fetched, else the refusal message.

        `private_address` is a loopback/private/link-local address the host
        resolved to (the fetch tool checks every one): only an allow rule of the
        user's config that names this exact host lets such a fetch through, in
        every mode (a wildcard such as `Fetch(*.example.com)` never does), so a
        prompt injection cannot talk a model into reading the metadata service or
        a local admin page. The fetch tool calls this before resolving the name
        (rules and the person's answer come before any DNS query), then again
        with `approved` and the address the lookup found.
        `approved` marks a hop the user already allowed in this call.
        """
        verdict = self.rules.verdict_for_url("fetch", url)
        if verdict.kind == "deny":
            return f"{url} blocked by permission rule '{verdict.rule}'"
        host = url_host(url)
        if private_address is not None and not self.rules.names_url_host("fetch", url):
            return (
                f"{url} resolves to the private address {private_address}; fetch refuses local"
                f" and private networks unless an allow rule names that exact host,"
                f" e.g. 'Fetch({host})'"
            )
        if not self.approval.enabled or approved:
            return None
        if verdict.kind == "ask":
            if not self.broker.attached:
                return no_user(verdict.rule or "Fetch")
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

    async def authorize_search(
        self, query: str, url: str, private_address: str | None, *, approved: bool = False
    ) -> str | None:
        """None when `query` may be sent to the search server at `url`, else the refusal.

        Gated like fetch, because the query leaves the machine and can carry
        what the model read (`WebSearch(glob over the query)` rules; bare
        `WebSearch` allows or denies every search; otherwise the person is asked).
        `private_address` is a non-public address the server's host resolved to:
        link-local (the metadata service) is always refused; another private
        address only when the user wrote it as the host itself (an IP literal or
        `localhost`, as a local SearXNG is) or an allow rule names the exact host.
        The tool calls this before the lookup, then with `approved` and the address.
        """
        verdict = self.rules.verdict_for_text("web_search", [query])
        if verdict.kind == "deny":
            return f"this web search was blocked by permission rule '{verdict.rule}'"
        if "web_search" in self._denied_kinds:
            return denied_by_user("web_search")
        if private_address is not None:
            refusal = self._private_search(url, private_address)
            if refusal is not None:
                return refusal
        if not self.approval.enabled or approved:
            return None
        shown = f"Allow web search: {query} (sent to {url_host(url)})"
        if verdict.kind == "ask":
            if not self.broker.attached:
                return no_user(verdict.rule or "WebSearch")
            answer = await self.broker.ask(shown, [], ["allow once", "deny"])
            return None if answer == "allow once" else self._refused("web_search", answer)
        if verdict.kind == "allow" or "web_search" in self._session_kinds:
            return None
        if not self.broker.attached:
            return None
        always = always_choices("WebSearch")
        choices = ["allow once", *always, "allow all web_search this session", "deny"]
        answer = await self.broker.ask(shown, [], choices)
        if answer == "allow once":
            return None
        if answer in always:
            self._remember("WebSearch", everywhere=answer == always[1])
            return None
        if answer == "allow all web_search this session":
            self._session_kinds.add("web_search")
            return None
        return self._refused("web_search", answer)

    def _private_search(self, url: str, address: str) -> str | None:
        import ipaddress

        from rift.net.hosts import literal_address, parse_url

        target = parse_url(url)
        host = target.host if target else ""
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        named = literal_address(host) is not None or host == "localhost"
        if not ip.is_link_local and (named or self.rules.names_url_host("fetch", url)):
            return None
        return (
            f"web search refused: search_url {url} reaches the private address {address}"
            " (link-local addresses such as the metadata service are always refused; for a"
            " local server write its address or localhost in search_url)"
        )

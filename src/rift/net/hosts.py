"""Hosts and URL rules: how `Fetch(...)` and `WebSearch(...)` rules read a URL, by host.

A rule without a scheme or a slash (`Fetch(*.example.com)`, `Fetch(localhost:8080)`)
is a domain rule and is matched against the host alone (and `host:port`), never
against the path, query or fragment: `http://127.0.0.1/x.example.com` is a
loopback URL whatever its path says. A rule with a scheme or a path
(`Fetch(https://docs.python.org/3/*)`) is split the same way: its host part
against the host, its path part against the path and query; written without a
path it covers the whole site.

Hosts are compared in one normal form (`normal_host`: lowercase, no trailing
dot, IDNA), so `http://EXFIL.dns.test./` is the host a `Fetch(exfil.dns.test)`
deny rule names. Nothing here resolves a name: rules and asks are decided before
any DNS query, which could itself carry a secret to the name's server.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from urllib.parse import urlsplit

from msgspec import Struct


class UrlTarget(Struct, frozen=True):
    """What a URL rule is matched against: scheme, normal host, port, path with query."""

    scheme: str
    host: str
    port: int | None
    path: str

    @property
    def shown_host(self) -> str:
        """The host as a rule writes it (IPv6 literals in brackets)."""
        return f"[{self.host}]" if ":" in self.host else self.host

    @property
    def netlocs(self) -> tuple[str, ...]:
        """`host` and, when a port is written, `host:port` (a default port is dropped)."""
        default = {"http": 80, "https": 443}.get(self.scheme)
        if self.port is None or self.port == default:
            return (self.shown_host,)
        return (self.shown_host, f"{self.shown_host}:{self.port}")


def normal_host(host: str) -> str:
    """Lowercase, brackets and one trailing dot dropped, non-ASCII labels as IDNA
    (`xn--…`); a name IDNA refuses stays lowercased (it cannot resolve either)."""
    host = host.strip().strip("[]").lower()
    if host.endswith(".") and not host.endswith(".."):
        host = host[:-1]
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


def parse_url(url: str) -> UrlTarget | None:
    """The parts of `url` rules see, or None when it is not a URL with a host."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return UrlTarget(parts.scheme.lower(), normal_host(parts.hostname), port, path)


def literal_address(host: str) -> str | None:
    """`host` when it is an IP address literal (no lookup needed to know it), else None."""
    try:
        return str(ipaddress.ip_address(host.split("%", 1)[0]))
    except ValueError:
        return None


def _host_pattern(pattern: str) -> str:
    """A rule's host part in the normal form (glob characters kept)."""
    if pattern.startswith("[") and "]" in pattern:
        inner, _, rest = pattern[1:].partition("]")
        return f"[{inner.lower()}]{rest}"
    host, colon, port = pattern.partition(":")
    if re.search(r"[*?\[{]", host):
        return host.lower().rstrip(".") + colon + port
    return normal_host(host) + colon + port


def split_rule(pattern: str) -> tuple[str | None, str, str | None]:
    """A URL rule as (scheme glob or None, host glob, path glob or None)."""
    scheme: str | None = None
    rest = pattern.strip()
    if "://" in rest:
        scheme, rest = rest.split("://", 1)
        scheme = scheme.lower()
    host, slash, path = rest.partition("/")
    return scheme, _host_pattern(host), (slash + path) if slash else None


def rule_matches(pattern: str, target: UrlTarget, match: Callable[[str, str], bool]) -> bool:
    """Whether the URL rule `pattern` covers `target`; `match(glob, text)` is the
    rule engine's flat glob (where `*` crosses every character)."""
    scheme, host, path = split_rule(pattern)
    if scheme is not None and not match(scheme, target.scheme):
        return False
    if not any(match(host, netloc) for netloc in target.netlocs):
        return False
    return path is None or match(path, target.path)


def names_exactly(pattern: str, target: UrlTarget) -> bool:
    """Whether the rule names this very host (no wildcard in its host part): the only
    kind of allow rule that lifts fetch's refusal of a private address."""
    _scheme, host, _path = split_rule(pattern)
    if re.search(r"[*?\[{]", host):
        return False
    return host in target.netlocs

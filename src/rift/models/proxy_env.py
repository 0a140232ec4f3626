"""Whether the proxy settings httpx honours could apply to a plain-http host.

`http.py` sends a plain-http request over `wire.py` only when no proxy setting could
touch it, so this may say "maybe" (True) too often, never too rarely: an unusual
`NO_PROXY` entry (a CIDR range, a port, a scheme) does not exempt the host. The
settings are those httpx reads through `urllib.request.getproxies()`, matched as httpx
matches them; on Linux that is the environment alone, read directly (`urllib.request`
costs ~9 ms of imports), while macOS and Windows also have system settings. Like httpx,
this reads `os.environ`, not `Config`: it mirrors httpx, it does not configure rift.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

_SYSTEM_SETTINGS = ("darwin", "win32")
"""Platforms where `getproxies()` also reads system proxy settings."""


def _environment_proxies(environ: Mapping[str, str]) -> dict[str, str]:
    """`urllib.request.getproxies_environment()`, over `environ`."""
    proxies: dict[str, str] = {}
    for name, value in environ.items():
        lower = name.lower()
        if value and lower.endswith("_proxy"):
            proxies[lower[:-6]] = value
    if "REQUEST_METHOD" in environ:
        proxies.pop("http", None)
    for name, value in environ.items():
        if name.endswith("_proxy"):  # the lower-case spelling has the last word
            if value:
                proxies[name.lower()[:-6]] = value
            else:
                proxies.pop(name.lower()[:-6], None)
    return proxies


def _proxies(environ: Mapping[str, str] | None) -> dict[str, str]:
    if environ is None and sys.platform in _SYSTEM_SETTINGS:
        import urllib.request  # the system settings: only this module reads them

        return {k: v for k, v in urllib.request.getproxies().items() if isinstance(v, str)}
    return _environment_proxies(os.environ if environ is None else environ)


def _is_ipv6(text: str) -> bool:
    return ":" in text and all(c in "0123456789abcdefABCDEF:." for c in text)


def _is_ipv4(text: str) -> bool:
    parts = text.split(".")
    return len(parts) == 4 and all(p.isdigit() and int(p) < 256 for p in parts)


def _exempts(entry: str, host: str) -> bool:
    """True when the `no_proxy` entry surely exempts `host` the way httpx reads it."""
    if entry == "*":
        return True
    if "://" in entry or "/" in entry:
        return False  # a scheme or a CIDR range: leave it to httpx
    if _is_ipv6(entry.strip("[]")):
        return entry.strip("[]").lower() == host.lower()
    if ":" in entry:
        return False  # host:port: leave it to httpx
    if _is_ipv4(entry) or entry.lower() == "localhost":
        return entry.lower() == host.lower()
    domain, name = entry.lower(), host.lower()
    if domain.startswith("."):
        return name.endswith(domain) and len(name) > len(domain)
    return name == domain or name.endswith("." + domain)


def may_proxy(host: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether a proxy setting could apply to plain-http requests to `host` (IPv6 without
    brackets); `environ` None reads the process environment (and on macOS and Windows the
    system proxy settings)."""
    proxies = _proxies(environ)
    if not (proxies.get("http") or proxies.get("all")):
        return False
    entries = [e.strip() for e in proxies.get("no", "").split(",")]
    return not any(_exempts(e, host) for e in entries if e)

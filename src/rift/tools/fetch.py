"""fetch: GET a web page and hand the model its readable text.

Every hop (the URL and each redirect, at most 10) goes through the gate:
`Fetch(domain)` deny rules refuse, allow rules skip the prompt, and otherwise
the user is asked, as for bash. Before the gate sees a hop, its host is
resolved and every address checked, so loopback, private, link-local and
other non-public ranges (the cloud metadata service, a router's admin page)
are refused unless an allow rule names that host: a prompt-injected page must
not be able to make the agent reach inside the user's network.

The connection then goes to an address that was checked, never to a fresh
lookup (the URL's host becomes that IP; the Host header and TLS SNI keep the
name, so certificates are still verified against it): a DNS server that
answers "public" for the check and "127.0.0.1" for the connect (DNS
rebinding) gets nowhere.

HTML becomes Markdown-ish text with html2text: it imports quickly with no
dependencies, drops script, style and comments, and keeps code indentation and
tables, which a coding agent reads docs for. Other text passes through; binary
bodies are not shown. The text is middle-truncated at `max_bytes`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from typing import Any
from urllib.parse import urljoin, urlsplit

from rift.errors import ToolError
from rift.net.hosts import literal_address, normal_host
from rift.tools.arguments import Args, from_args
from rift.tools.base import ToolContext, ToolOutput, is_binary, middle_truncate, titled

DEFAULT_MAX_BYTES = 20_000
MAX_MAX_BYTES = 100_000
DOWNLOAD_CAP = 2_000_000
"""Bytes read from the body at most; the rest is never downloaded."""
MAX_REDIRECTS = 10
TIMEOUT = 20.0
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript")
_HTML_TYPES = ("text/html", "application/xhtml+xml")


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


async def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to, in the resolver's order, without duplicates."""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise ToolError(f"cannot resolve {host}: {exc}") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def first_private(addresses: list[str]) -> str | None:
    """The first non-public address, or None. Every address counts: a name with one
    public and one loopback record could be connected either way."""
    return next((a for a in addresses if not _public(a)), None)


def pinned(url: str, address: str) -> tuple[str, dict[str, str], dict[str, Any]]:
    """`url` aimed at `address`, with the Host header and SNI still naming its host."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    literal = f"[{address}]" if ":" in address else address
    netloc = literal if parts.port is None else f"{literal}:{parts.port}"
    target = parts._replace(netloc=netloc).geturl()
    shown = parts.netloc.rsplit("@", 1)[-1]
    return target, {"Host": shown}, {"sni_hostname": host}


def _check_url(url: str) -> tuple[str, int]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ToolError(f"not a valid URL: {url} ({exc})") from exc
    if parts.scheme.lower() not in ("http", "https"):
        raise ToolError(f"fetch only reads http and https URLs, not {url}")
    if not parts.hostname:
        raise ToolError(f"not a valid URL (no host): {url}")
    return normal_host(parts.hostname), port or (443 if parts.scheme.lower() == "https" else 80)


def html_to_text(html: str) -> str:
    import html2text

    converter = html2text.HTML2Text()
    converter.body_width = 0  # no hard wrapping: the model reflows, wrapping costs tokens
    converter.ignore_images = True
    converter.unicode_snob = True
    text = converter.handle(html)
    text = "\n".join(line.rstrip() for line in text.splitlines())
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _body_text(content_type: str, raw: bytes, encoding: str | None) -> str:
    kind = content_type.split(";", 1)[0].strip().lower()
    textual = kind.startswith(_TEXT_TYPES) or kind.endswith(("+json", "+xml"))
    if (kind and not textual) or is_binary(raw):
        return f"(binary content, {len(raw)} bytes, not shown)"
    try:
        text = raw.decode(encoding or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        text = raw.decode("utf-8", errors="replace")
    if kind in _HTML_TYPES or (not kind and "<html" in text[:1000].lower()):
        return html_to_text(text)
    return text


async def _get(client: Any, url: str, addresses: list[str]) -> tuple[Any, bytes, bool]:
    """One GET to the first checked address that connects, without following redirects;
    the body read is capped at DOWNLOAD_CAP."""
    from rift.net._httpx import httpx

    for n, address in enumerate(addresses):
        target, headers, extensions = pinned(url, address)
        try:
            return await _read(client.stream("GET", target, headers=headers, extensions=extensions))
        except httpx.ConnectError:
            if n == len(addresses) - 1:
                raise
    raise ToolError(f"cannot resolve {url}")


async def _read(request: Any) -> tuple[Any, bytes, bool]:
    async with request as response:
        chunks: list[bytes] = []
        size = 0
        cut = False
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size >= DOWNLOAD_CAP:
                cut = True
                break
        return response, b"".join(chunks)[:DOWNLOAD_CAP], cut


async def _follow(client: Any, url: str, ctx: ToolContext) -> tuple[Any, bytes, bool, str]:
    """Fetch `url`, passing the gate (and the address check) before every hop."""
    approved: set[str] = set()
    for _hop in range(MAX_REDIRECTS + 1):
        host, port = _check_url(url)
        literal = literal_address(host)
        private = literal if literal is not None and not _public(literal) else None
        # Rules and the person's answer first: the lookup itself can carry a secret.
        refusal = await ctx.gate.authorize_fetch(url, private, approved=host in approved)
        if refusal is not None:
            raise ToolError(refusal)
        approved.add(host)
        addresses = await resolve(host, port)
        private = first_private(addresses)
        if private is not None:
            refusal = await ctx.gate.authorize_fetch(url, private, approved=True)
            if refusal is not None:
                raise ToolError(refusal)
        response, body, cut = await asyncio.wait_for(_get(client, url, addresses), TIMEOUT * 2)
        location = response.headers.get("location")
        if response.status_code not in _REDIRECTS or not location:
            return response, body, cut, url
        url = urljoin(url, location)
    raise ToolError(f"too many redirects (more than {MAX_REDIRECTS}); last location: {url}")


class FetchArgs(Args, frozen=True, kw_only=True):
    url: str
    max_bytes: int = DEFAULT_MAX_BYTES


async def _run(args: FetchArgs, ctx: ToolContext) -> ToolOutput:
    from rift import __version__
    from rift.net._httpx import httpx

    url = args.url.strip()
    cap = max(1_000, min(args.max_bytes or DEFAULT_MAX_BYTES, MAX_MAX_BYTES))
    _check_url(url)
    headers = {"User-Agent": f"rift/{__version__}"}
    try:
        async with httpx.AsyncClient(
            timeout=TIMEOUT, headers=headers, follow_redirects=False
        ) as client:
            response, body, cut, final = await _follow(client, url, ctx)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise ToolError(f"fetch {url} failed: {exc or type(exc).__name__}") from exc
    except TimeoutError as exc:
        raise ToolError(f"fetch {url} timed out") from exc
    content_type = response.headers.get("content-type", "")
    text = _body_text(content_type, body, response.charset_encoding)
    if cut:
        text += f"\n[download stopped at {DOWNLOAD_CAP} bytes]"
    header = f"[{response.status_code} {content_type.split(';', 1)[0] or 'unknown type'}] {final}"
    return ToolOutput(
        ok=response.status_code < 400, text=f"{header}\n\n{middle_truncate(text, cap)}"
    )


TOOL = from_args(
    _run,
    description=(
        "Fetch a URL (http/https) and return its readable text; HTML is converted to Markdown. "
        f"max_bytes caps the text (default {DEFAULT_MAX_BYTES})."
    ),
    kind="fetch",
    title=titled("Fetch {}", "url", "Fetch a URL"),
)

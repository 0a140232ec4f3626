"""web_search: query the user's SearXNG instance, results as title/url/snippet.

Offered only when `search_url` is configured; the instance must allow `format=json`.
The query leaves the machine and can carry what the model read, so it passes the
gate (`WebSearch(...)` rules, or the person is asked) before the server's name is
even resolved, and the server's addresses are checked as fetch checks them.
"""

from __future__ import annotations

from typing import Any

from rift.errors import ToolError
from rift.net.hosts import literal_address, parse_url
from rift.tools.arguments import Args, from_args
from rift.tools.base import ToolContext, ToolOutput, titled
from rift.tools.fetch import first_private, pinned, resolve

MAX_RESULTS = 8
SNIPPET_CAP = 240
TIMEOUT = 20.0
UNCONFIGURED = 'web search is not configured: set "search_url" (a SearXNG instance) in the config'


def _clip(text: str, cap: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= cap else flat[:cap].rstrip() + "…"


def format_results(query: str, data: Any) -> str:
    results = data.get("results") if isinstance(data, dict) else None
    lines: list[str] = []
    for item in results if isinstance(results, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("url"), str):
            continue
        title = _clip(str(item.get("title") or item["url"]), SNIPPET_CAP)
        lines.append(f"- {title}\n  {item['url']}")
        snippet = item.get("content")
        if isinstance(snippet, str) and snippet.strip():
            lines[-1] += f"\n  {_clip(snippet, SNIPPET_CAP)}"
        if len(lines) == MAX_RESULTS:
            break
    return "\n".join(lines) if lines else f"no results for: {query}"


async def _checked_addresses(query: str, url: str, ctx: ToolContext) -> list[str]:
    """The gate's answer before any lookup, then the server's addresses, each checked
    (the connection goes to one of them, never to a fresh lookup)."""
    target = parse_url(url)
    if target is None or target.scheme not in ("http", "https"):
        raise ToolError(f"web search failed: cannot reach {url}: not an http(s) URL")
    literal = literal_address(target.host)
    private = literal if literal is not None and first_private([literal]) else None
    refusal = await ctx.gate.authorize_search(query, url, private)
    if refusal is not None:
        raise ToolError(refusal)
    port = target.port or (443 if target.scheme == "https" else 80)
    try:
        addresses = await resolve(target.host, port)
    except ToolError as exc:
        raise ToolError(f"web search failed: cannot reach {url}: {exc}") from exc
    private = first_private(addresses)
    if private is not None:
        refusal = await ctx.gate.authorize_search(query, url, private, approved=True)
        if refusal is not None:
            raise ToolError(refusal)
    return addresses


async def _get(client: Any, url: str, addresses: list[str], params: dict[str, str]) -> Any:
    """GET from the first checked address that connects (Host header and SNI keep the name)."""
    from rift.net._httpx import httpx

    for n, address in enumerate(addresses):
        target, headers, extensions = pinned(url, address)
        try:
            return await client.get(target, params=params, headers=headers, extensions=extensions)
        except httpx.ConnectError:
            if n == len(addresses) - 1:
                raise
    raise ToolError(f"web search failed: cannot resolve {url}")


class WebSearchArgs(Args, frozen=True, kw_only=True):
    query: str


async def _run(args: WebSearchArgs, ctx: ToolContext) -> ToolOutput:
    from rift import __version__
    from rift.net._httpx import httpx

    query = args.query.strip()
    if not query:
        raise ToolError("parameter 'query' is empty")
    config = ctx.services.settings
    base = None if config is None else config.search_url
    if not base:
        raise ToolError(UNCONFIGURED)
    url = base.rstrip("/") + "/search"
    addresses = await _checked_addresses(query, url, ctx)
    headers = {"User-Agent": f"rift/{__version__}", "Accept": "application/json"}
    params = {"q": query, "format": "json"}
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT, headers=headers) as client:
            response = await _get(client, url, addresses, params)
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise ToolError(f"web search failed: cannot reach {url}: {exc}") from exc
    if response.status_code == 403:
        raise ToolError(
            f"web search failed: {url} answered 403; the SearXNG instance must allow the json"
            " format (search.formats: [html, json] in its settings.yml)"
        )
    if not response.is_success:
        raise ToolError(f"web search failed: {url} answered HTTP {response.status_code}")
    try:
        data = response.json()
    except ValueError as exc:
        raise ToolError(f"web search failed: {url} did not answer JSON") from exc
    return ToolOutput(ok=True, text=format_results(query, data))


TOOL = from_args(
    _run,
    description="Search the web; returns titles, URLs and snippets. Use fetch to read a result.",
    kind="fetch",
    title=titled("Search the web for '{}'", "query", "Search the web for ''"),
)

"""web_search: query the user's SearXNG instance, results as title/url/snippet.

Registered only when `search_url` is configured (tools/__init__.py), so a
model never sees a tool that can only fail. The instance must allow
`format=json`; a 403 says so. The query goes to the user's own server, so it
is not gated per call (the URL it returns is, when fetched).
"""

from __future__ import annotations

from typing import Any

from rift.errors import ToolError
from rift.tools.base import Tool, ToolContext, ToolOutput, require_str

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


async def _run(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    from rift import __version__
    from rift._httpx import httpx

    query = require_str(args, "query").strip()
    if not query:
        raise ToolError("parameter 'query' is empty")
    config = ctx.services.settings
    base = None if config is None else config.search_url
    if not base:
        raise ToolError(UNCONFIGURED)
    url = base.rstrip("/") + "/search"
    headers = {"User-Agent": f"rift/{__version__}", "Accept": "application/json"}
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT, headers=headers) as client:
            response = await client.get(url, params={"q": query, "format": "json"})
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


TOOL = Tool(
    name="web_search",
    description="Search the web; returns titles, URLs and snippets. Use fetch to read a result.",
    parameters={
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
    },
    run=_run,
)

"""web_search: a project's search_url needs trust, every query passes the gate, and the
server's addresses are checked like fetch's (issue 30, High). Real rift, a real
search server on 127.0.0.1 that records every query."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

import pytest
from rift_bin import run_rift, write_json
from tooldoubles import RecordingJournal

from rift.config.load import Config
from rift.core.permissions.gate import Approval, PermissionGate
from rift.core.permissions.interaction import InteractionBroker
from rift.core.permissions.rules import Rules
from rift.errors import ToolError
from rift.events import Ask, Event
from rift.tools.base import ToolContext
from rift.tools.web_search import TOOL as WEB_SEARCH

MODEL = "fake-model"


class _Searx(BaseHTTPRequestHandler):
    queries: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.queries.append(parse_qs(urlsplit(self.path).query).get("q", [""])[0])
        raw = json.dumps({"results": [{"title": "T", "url": "https://example.com/"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture
def searx() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Searx)
    _Searx.queries = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _tool_names(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


def test_a_project_search_url_needs_trust(project: Path, fake_server: Any, searx: str) -> None:
    write_json(project / ".rift.json", {"search_url": searx})
    search = {"name": "web_search", "arguments": {"query": "DB_PASSWORD=hunter2"}}
    script = {"turns": [{"tool_calls": [search]}, {"content": "done"}]}
    server = fake_server(script)
    run = run_rift(["-p", "search", "--host", server.url, "-m", MODEL], project)
    assert run.returncode == 0, run.stderr
    assert "web_search" not in _tool_names(server.chat_requests()[0])
    assert _Searx.queries == []
    assert f'search_url "{searx}"' in run.stderr and "--trust-project" in run.stderr

    server = fake_server(script)
    args = ["-p", "search", "--host", server.url, "-m", MODEL, "--trust-project"]
    run = run_rift(args, project)
    assert run.returncode == 0, run.stderr
    assert "web_search" in _tool_names(server.chat_requests()[0])
    assert _Searx.queries == ["DB_PASSWORD=hunter2"]


def test_the_users_own_search_url_needs_no_trust(
    project: Path, fake_server: Any, searx: str
) -> None:
    write_json(Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json", {"search_url": searx})
    write_json(project / ".rift.json", {"search_url": searx})
    server = fake_server({"turns": [{"content": "hi"}]})
    run = run_rift(["-p", "hi", "--host", server.url, "-m", MODEL], project)
    assert "web_search" in _tool_names(server.chat_requests()[0])
    assert "search_url" not in run.stderr


def _ctx(
    proj: Path,
    search_url: str,
    *,
    deny: tuple[str, ...] = (),
    allow: tuple[str, ...] = (),
    events: list[Event] | None = None,
) -> ToolContext:
    rules = Rules(allow=allow, deny=deny, cwd=proj, home=proj)
    sink = events.append if events is not None else (lambda event: None)
    broker = InteractionBroker(sink, attached=events is not None)
    gate = PermissionGate(rules, Approval(), broker, proj)
    ctx = ToolContext(cwd=proj, gate=gate, journal=RecordingJournal())
    ctx.services.settings = Config(search_url=search_url)
    return ctx


def _search(ctx: ToolContext, query: str) -> Any:
    return asyncio.run(WEB_SEARCH.run({"query": query}, ctx))


def test_the_person_is_asked_and_a_no_sends_nothing(proj: Path, searx: str) -> None:
    events: list[Event] = []
    ctx = _ctx(proj, searx, events=events)

    async def scenario(answer: str) -> Any:
        task = asyncio.create_task(WEB_SEARCH.run({"query": "DB_PASSWORD=x"}, ctx))
        before = len(events)
        while len(events) == before:
            await asyncio.sleep(0.01)
        ask = events[-1]
        assert isinstance(ask, Ask)
        assert ask.question == "Allow web search: DB_PASSWORD=x (sent to 127.0.0.1)"
        assert "allow all web_search this session" in ask.choices
        ctx.gate.broker.answer(ask.id, answer)  # type: ignore[attr-defined]
        return await task

    with pytest.raises(ToolError, match="DENIED"):
        asyncio.run(scenario("deny"))
    assert _Searx.queries == []
    assert asyncio.run(scenario("allow once")).ok
    assert _Searx.queries == ["DB_PASSWORD=x"]


def test_websearch_rules(proj: Path, searx: str) -> None:
    with pytest.raises(ToolError, match=r"permission rule 'WebSearch\(\*PASSWORD\*\)'"):
        _search(_ctx(proj, searx, deny=("WebSearch(*PASSWORD*)",)), "DB_PASSWORD=x")
    with pytest.raises(ToolError, match=r"permission rule 'WebSearch'"):
        _search(_ctx(proj, searx, deny=("WebSearch",)), "anything")
    assert _Searx.queries == []
    assert _search(_ctx(proj, searx, deny=("WebSearch(*PASSWORD*)",)), "tree-sitter").ok


def test_the_metadata_address_is_never_searched(proj: Path) -> None:
    for url in ("http://169.254.169.254/latest", "http://[fe80::1]:8080"):
        with pytest.raises(ToolError, match="private address"):
            _search(_ctx(proj, url), "x")

"""ask_user, remember and web_search: with real brokers and gates, and end to end.

The end-to-end tests run the real `rift -p` / `rift --serve` against the
scripted fake model server (tests/conftest.py's `fake_server`), and a tiny
real HTTP server playing SearXNG.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

import pytest
from rift_bin import run_rift, write_json
from serve_driver import ServeProcess
from tooldoubles import RecordingGate, RecordingJournal, call

from rift.config.load import Config
from rift.core.permissions.gate import Approval, PermissionGate
from rift.core.permissions.interaction import InteractionBroker
from rift.core.permissions.rules import Rules
from rift.errors import ToolError
from rift.events import Ask, Event
from rift.tools.ask_user import DISMISSED, NO_USER
from rift.tools.ask_user import TOOL as ASK_USER
from rift.tools.base import ToolContext, WriteVerdict
from rift.tools.remember import FILE_CAP
from rift.tools.remember import TOOL as REMEMBER
from rift.tools.services import ToolServices
from rift.tools.web_search import TOOL as WEB_SEARCH

MODEL = "fake-model"


def _user_config(data: dict[str, Any]) -> None:
    import os

    write_json(Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json", data)


def _tool_names(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


def _tool_result(request: dict[str, Any]) -> str:
    tool_messages = [m for m in request["messages"] if m["role"] == "tool"]
    return str(tool_messages[-1]["content"])


# ------------------------------------------------------------------ ask_user


def test_ask_user_free_text_and_choices_through_the_broker(proj: Path) -> None:
    events: list[Event] = []
    broker = InteractionBroker(events.append, attached=True)
    ctx = ToolContext(
        cwd=proj,
        gate=RecordingGate(),
        journal=RecordingJournal(),
        services=ToolServices(asker=broker),
    )

    async def ask(args: dict[str, Any], answer: str | None) -> str:
        before = len(events)
        task = asyncio.create_task(ASK_USER.run(args, ctx))
        while len(events) == before:
            await asyncio.sleep(0)
        event = events[-1]
        assert isinstance(event, Ask)
        if answer is None:
            broker.drop_all()
        else:
            broker.answer(event.id, answer)
        return (await task).text

    async def scenario() -> list[str]:
        return [
            await ask({"question": "Which database?"}, "postgres, version 16"),
            await ask({"question": "Port?", "choices": ["8080", "9090"]}, "9090"),
            await ask({"question": "Name?"}, None),
        ]

    free, choice, dismissed = asyncio.run(scenario())
    asks = [e for e in events if isinstance(e, Ask)]
    assert [(a.question, a.choices) for a in asks] == [
        ("Which database?", []),
        ("Port?", ["8080", "9090"]),
        ("Name?", []),
    ]
    assert free == "User answered: postgres, version 16"
    assert choice == "User answered: 9090"
    assert dismissed == DISMISSED


def test_ask_user_without_a_user_refuses_at_once(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match=r"no user is attached"):
        call(ASK_USER, ctx, question="Which one?")
    ctx.services.asker = InteractionBroker(lambda e: None, attached=False)
    with pytest.raises(ToolError, match=r"non-interactive run"):
        call(ASK_USER, ctx, question="Which one?")


def test_ask_user_over_serve_is_a_free_text_ask(project: Path, fake_server: Any) -> None:
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [{"name": "ask_user", "arguments": {"question": "Colour?"}}]},
                {"content": "noted"},
            ]
        }
    )
    serve = ServeProcess(project, "--host", server.url, "-m", MODEL)
    try:
        serve.until("ready")
        serve.send({"cmd": "prompt", "text": "paint it"})
        ask = serve.until("ask")
        assert ask["question"] == "Colour?"
        assert ask["choices"] == []
        serve.send({"cmd": "answer", "id": ask["id"], "text": "deep blue"})
        serve.until("done")
    finally:
        serve.close()
    assert _tool_result(server.chat_requests()[1]) == "User answered: deep blue"


def test_ask_user_in_print_mode_tells_the_model_to_decide(project: Path, fake_server: Any) -> None:
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [{"name": "ask_user", "arguments": {"question": "Colour?"}}]},
                {"content": "chose red"},
            ]
        }
    )
    run = run_rift(["-p", "paint it", "--host", server.url, "-m", MODEL], project)
    assert run.returncode == 0, run.stderr
    assert "chose red" in run.stdout
    assert _tool_result(server.chat_requests()[1]) == f"ERROR: {NO_USER}"


# ------------------------------------------------------------------ remember


def test_remember_appends_refuses_duplicates_and_is_gated_as_an_edit(
    ctx: ToolContext, gate: RecordingGate, journal: RecordingJournal, proj: Path
) -> None:
    memory = proj / ".rift/memory.md"
    assert call(REMEMBER, ctx, fact="Tests run with  `make check`").text == (
        "remembered in .rift/memory.md: Tests run with `make check`"
    )
    assert call(REMEMBER, ctx, fact="Use tabs in Go files").ok
    assert memory.read_text() == "- Tests run with `make check`\n- Use tabs in Go files\n"
    assert call(REMEMBER, ctx, fact="Use tabs in Go files").text.startswith("already remembered")
    assert memory.read_text().count("Use tabs") == 1
    tool, path, old, new = gate.writes[1]
    assert (tool, path) == ("edit", memory)
    assert old == "- Tests run with `make check`\n"
    assert new == memory.read_text()
    assert journal.entries[0] == (memory, None)  # /undo can remove the file again

    gate.write_verdict = WriteVerdict(False, message="the user DENIED this edit action.")
    refused = call(REMEMBER, ctx, fact="Something new")
    assert not refused.ok and "DENIED" in refused.text
    assert "Something new" not in memory.read_text()


def test_remember_caps(ctx: ToolContext, proj: Path) -> None:
    with pytest.raises(ToolError, match=r"at most 500 characters"):
        call(REMEMBER, ctx, fact="x" * 501)
    with pytest.raises(ToolError, match=r"missing required string parameter 'fact'"):
        call(REMEMBER, ctx)
    memory = proj / ".rift/memory.md"
    memory.parent.mkdir()
    memory.write_text("- " + "y" * (FILE_CAP - 10) + "\n")
    with pytest.raises(ToolError, match=r"prune"):
        call(REMEMBER, ctx, fact="one more fact")


def test_remember_respects_a_deny_rule(proj: Path) -> None:
    rules = Rules(deny=("Edit(.rift/**)",), cwd=proj, home=proj)
    gate = PermissionGate(rules, Approval(), InteractionBroker(lambda e: None), proj)
    ctx = ToolContext(cwd=proj, gate=gate, journal=RecordingJournal())
    out = call(REMEMBER, ctx, fact="a fact")
    assert not out.ok and "blocked by permission rule 'Edit(.rift/**)'" in out.text
    assert not (proj / ".rift/memory.md").exists()


def test_a_remembered_fact_reaches_the_next_sessions_prompt(
    project: Path, fake_server: Any
) -> None:
    call_ = {"name": "remember", "arguments": {"fact": "The API lives in srv/api"}}
    server = fake_server(
        {"turns": [{"tool_calls": [call_]}, {"content": "saved"}, {"content": "hello"}]}
    )
    for prompt in ("remember where the API is", "hi"):
        run = run_rift(["-p", prompt, "--host", server.url, "-m", MODEL], project)
        assert run.returncode == 0, run.stderr
    assert (project / ".rift/memory.md").read_text() == "- The API lives in srv/api\n"
    system = server.chat_requests()[-1]["messages"][0]
    assert system["role"] == "system"
    assert "The API lives in srv/api" in system["content"]


# ---------------------------------------------------------------- web_search


class _Searx(BaseHTTPRequestHandler):
    queries: ClassVar[list[dict[str, list[str]]]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        self.queries.append(query)
        q = query.get("q", [""])[0]
        if parts.path != "/search" or query.get("format") != ["json"]:
            status, body = 403, {"error": "format not allowed"}
        elif q == "nothing":
            status, body = 200, {"query": q, "results": []}
        else:
            results = [
                {"title": f"Result {i}", "url": f"https://example.com/{i}", "content": "word " * 80}
                for i in range(12)
            ]
            status, body = 200, {"query": q, "results": results}
        raw = json.dumps(body).encode()
        self.send_response(status)
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


def test_web_search_formats_up_to_eight_results(ctx: ToolContext, searx: str) -> None:
    ctx.services.settings = Config(search_url=searx + "/")
    out = call(WEB_SEARCH, ctx, query="rift agent")
    assert out.ok
    blocks = out.text.split("\n- ")
    assert len(blocks) == 8
    first = out.text.splitlines()
    assert first[:2] == ["- Result 0", "  https://example.com/0"]
    assert len(first[2]) <= 2 + 240 + 1 and first[2].endswith("…")
    assert _Searx.queries[0] == {"q": ["rift agent"], "format": ["json"]}
    assert call(WEB_SEARCH, ctx, query="nothing").text == "no results for: nothing"


def test_web_search_explains_a_403_and_an_unconfigured_url(ctx: ToolContext, searx: str) -> None:
    ctx.services.settings = Config(search_url=searx + "/not-searx")
    with pytest.raises(ToolError, match=r"403.*must allow the json"):
        call(WEB_SEARCH, ctx, query="x")
    ctx.services.settings = Config()
    with pytest.raises(ToolError, match=r"search_url"):
        call(WEB_SEARCH, ctx, query="x")
    for broken in ("http://[not-a-host", "ftp://example.invalid", "http://127.0.0.1:1"):
        ctx.services.settings = Config(search_url=broken)
        with pytest.raises(ToolError, match=r"web search failed: cannot reach"):
            call(WEB_SEARCH, ctx, query="x")


def test_web_search_is_offered_only_with_a_search_url(
    project: Path, fake_server: Any, searx: str
) -> None:
    server = fake_server({"turns": [{"content": "no search here"}]})
    assert run_rift(["-p", "hi", "--host", server.url, "-m", MODEL], project).returncode == 0
    assert "web_search" not in _tool_names(server.chat_requests()[0])

    _user_config({"search_url": searx})
    search = {"name": "web_search", "arguments": {"query": "tree-sitter"}}
    server = fake_server({"turns": [{"tool_calls": [search]}, {"content": "found"}]})
    run = run_rift(["-p", "look it up", "--host", server.url, "-m", MODEL], project)
    assert run.returncode == 0, run.stderr
    requests = server.chat_requests()
    assert "web_search" in _tool_names(requests[0])
    # The whole tool set (task and agent included) keeps the first request small.
    schemas = json.dumps(requests[0]["tools"], ensure_ascii=False, separators=(",", ":"))
    assert len(schemas.encode()) < 6 * 1024
    assert _tool_result(requests[1]).startswith("- Result 0\n  https://example.com/0")

"""Fetch rules read the host alone, and decide before any DNS query (issue 30, High).

A real HTTP server on 127.0.0.1 records every request; the rules are the real
engine behind the real gate. `Fetch(*.example.com)` is the README's own rule.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from tooldoubles import RecordingJournal

from rift.core.permissions.gate import Approval, PermissionGate
from rift.core.permissions.interaction import InteractionBroker
from rift.core.permissions.rules import Rules
from rift.errors import ToolError
from rift.events import Ask, Event
from rift.tools.base import ToolContext
from rift.tools.fetch import TOOL as FETCH


class _Recorder(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.hits.append(self.path)
        body = b"secret admin page"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def admin() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    _Recorder.hits = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _ctx(
    proj: Path,
    *,
    allow: tuple[str, ...] = (),
    deny: tuple[str, ...] = (),
    attached: bool = False,
    emit: Any = None,
) -> ToolContext:
    rules = Rules(allow=allow, deny=deny, cwd=proj, home=proj)
    broker = InteractionBroker(emit or (lambda event: None), attached=attached)
    gate = PermissionGate(rules, Approval(), broker, proj)
    return ToolContext(cwd=proj, gate=gate, journal=RecordingJournal())


def _refusal(ctx: ToolContext, url: str) -> str:
    with pytest.raises(ToolError) as caught:
        asyncio.run(FETCH.run({"url": url}, ctx))
    return str(caught.value)


@pytest.mark.parametrize(
    "tail", ["/x.example.com", "/?q=.example.com", "/#.example.com", "/a/b.example.com?x=1"]
)
def test_a_domain_rule_matches_the_host_alone(proj: Path, admin: str, tail: str) -> None:
    ctx = _ctx(proj, allow=("Fetch(*.example.com)",))
    refusal = _refusal(ctx, admin + tail)
    assert "private address 127.0.0.1" in refusal
    assert _Recorder.hits == []


def test_the_metadata_address_is_refused_under_a_wildcard_allow(proj: Path) -> None:
    for allow in ("Fetch(*.example.com)", "Fetch(*)", "Fetch(169.254.*)"):
        ctx = _ctx(proj, allow=(allow,))
        refusal = _refusal(ctx, "http://169.254.169.254/latest/meta-data/x.example.com")
        assert "private address 169.254.169.254" in refusal, allow


def test_only_an_exact_allow_rule_lifts_the_private_refusal(proj: Path, admin: str) -> None:
    out = asyncio.run(FETCH.run({"url": admin + "/ok"}, _ctx(proj, allow=("Fetch(127.0.0.1)",))))
    assert out.ok and "secret admin page" in out.text
    assert _Recorder.hits == ["/ok"]


@pytest.mark.parametrize(
    "url",
    [
        "http://exfil.dns.test./",
        "http://EXFIL.dns.TEST/",
        "http://exfil.dns.test.:8080/a",
        "https://user@exfil.dns.test./",
    ],
)
def test_deny_rules_see_the_normal_host_before_any_lookup(proj: Path, url: str) -> None:
    """A name that cannot resolve: if the lookup came first, the error would say so."""
    refusal = _refusal(_ctx(proj, deny=("Fetch(exfil.dns.test)",)), url)
    assert "blocked by permission rule 'Fetch(exfil.dns.test)'" in refusal


def test_the_person_is_asked_before_the_name_is_resolved(proj: Path) -> None:
    events: list[Event] = []
    ctx = _ctx(proj, attached=True, emit=events.append)

    async def scenario() -> str:
        task = asyncio.create_task(FETCH.run({"url": "http://secret-in-name.invalid/"}, ctx))
        while not events:
            await asyncio.sleep(0.01)
        ask = events[-1]
        assert isinstance(ask, Ask)
        ctx.gate.broker.answer(ask.id, "deny")  # type: ignore[attr-defined]
        with pytest.raises(ToolError) as caught:
            await task
        return str(caught.value)

    assert "DENIED" in asyncio.run(scenario())


def test_hosts_are_normalised() -> None:
    from rift.net.hosts import normal_host

    assert normal_host("Exfil.DNS.test.") == "exfil.dns.test"
    assert normal_host("bücher.example") == "xn--bcher-kva.example"
    assert normal_host("[::1]") == "::1"

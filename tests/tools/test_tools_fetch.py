"""fetch against a real HTTP server on 127.0.0.1, through the real gate and rule engine.

Loopback is a private address, so every fetch that should succeed here needs
the explicit `Fetch(127.0.0.1)` allow rule; that is the SSRF guard at work.
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
from rift.core.permissions.rules import Rules, url_candidates
from rift.errors import ToolError
from rift.events import Ask, Event
from rift.tools.base import ToolContext, ToolOutput
from rift.tools.fetch import TOOL as FETCH

PAGE = (
    "<html><head><title>T</title><style>body{color:red}</style>"
    "<script>var secret = 'tracking';</script></head><body>"
    "<h1>Install</h1><p>Run <code>pip install rift</code> &amp; enjoy.</p>"
    "<pre><code>def main():\n    return 1\n</code></pre><!-- hidden comment --></body></html>"
)


class _Handler(BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, tuple[int, dict[str, str], bytes]]] = {}
    hits: ClassVar[list[str]] = []
    hosts: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.hosts.append(self.headers.get("Host", ""))
        status, headers, body = self.routes.get(self.path, (404, {}, b"not here"))
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    html = {"Content-Type": "text/html; charset=utf-8"}
    _Handler.hits = []
    _Handler.hosts = []
    _Handler.routes = {
        "/page": (200, html, PAGE.encode()),
        "/plain": (200, {"Content-Type": "text/plain"}, b"just text\n"),
        "/big": (200, {"Content-Type": "text/plain"}, b"a" * 30_000 + b"END"),
        "/blob": (200, {"Content-Type": "application/octet-stream"}, b"\0\1\2" * 100),
        "/missing": (404, {"Content-Type": "text/plain"}, b"gone"),
        "/odd-charset": (200, {"Content-Type": "text/plain; charset=x-no-such"}, b"caf\xc3\xa9"),
        "/untyped-nul": (200, {}, b"PK\x03\x04\x00\x00binary"),
        "/hop": (302, {"Location": "/page"}, b""),
        "/to-localhost": (302, {"Location": base.replace("127.0.0.1", "localhost") + "/page"}, b""),
        "/to-metadata": (302, {"Location": "http://169.254.169.254/latest/meta-data/"}, b""),
        "/loop": (302, {"Location": "/loop"}, b""),
    }
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield base
    server.shutdown()
    server.server_close()


def _ctx(
    proj: Path,
    *,
    allow: tuple[str, ...] = ("Fetch(127.0.0.1)",),
    deny: tuple[str, ...] = (),
    ask: tuple[str, ...] = (),
    attached: bool = False,
    emit: Any = None,
) -> ToolContext:
    rules = Rules(allow=allow, deny=deny, ask=ask, cwd=proj, home=proj)
    broker = InteractionBroker(emit or (lambda event: None), attached=attached)
    gate = PermissionGate(rules, Approval(), broker, proj)
    return ToolContext(cwd=proj, gate=gate, journal=RecordingJournal())


def _fetch(ctx: ToolContext, **args: Any) -> ToolOutput:
    return asyncio.run(FETCH.run(args, ctx))


def test_html_becomes_readable_text(proj: Path, site: str) -> None:
    out = _fetch(_ctx(proj), url=f"{site}/page")
    assert out.ok
    head, body = out.text.split("\n\n", 1)
    assert head == f"[200 text/html] {site}/page"
    assert "# Install" in body
    assert "Run `pip install rift` & enjoy." in body
    assert "    def main():\n        return 1" in body  # code indentation survives
    for junk in ("tracking", "color:red", "hidden comment", "<p>"):
        assert junk not in body


def test_text_binary_status_and_cap(proj: Path, site: str) -> None:
    ctx = _ctx(proj)
    assert _fetch(ctx, url=f"{site}/plain").text == f"[200 text/plain] {site}/plain\n\njust text\n"
    blob = _fetch(ctx, url=f"{site}/blob")
    assert "(binary content, 300 bytes, not shown)" in blob.text
    assert _fetch(ctx, url=f"{site}/odd-charset").text.endswith("\n\ncafé")
    assert "(binary content, 12 bytes, not shown)" in _fetch(ctx, url=f"{site}/untyped-nul").text
    missing = _fetch(ctx, url=f"{site}/missing")
    assert not missing.ok
    assert missing.text.startswith("[404 text/plain]")
    big = _fetch(ctx, url=f"{site}/big", max_bytes=2000)
    assert "[output truncated: 2000 of 30003 bytes shown]" in big.text
    assert big.text.endswith("END")
    assert "[output truncated" not in _fetch(ctx, url=f"{site}/big").text[:100]


def test_loopback_is_refused_without_an_allow_rule(proj: Path, site: str) -> None:
    for approval_off in (False, True):
        ctx = _ctx(proj, allow=())
        if approval_off:
            assert isinstance(ctx.gate, PermissionGate)
            ctx.gate.approval.enabled = False  # /yolo does not open the private network
        with pytest.raises(ToolError, match=r"resolves to the private address 127.0.0.1") as err:
            _fetch(ctx, url=f"{site}/page")
        assert "Fetch(127.0.0.1)" in str(err.value)
    assert _Handler.hits == []  # refused before any connection


def test_ipv4_mapped_loopback_and_link_local_are_private(proj: Path, site: str) -> None:
    port = site.rsplit(":", 1)[1]
    with pytest.raises(ToolError, match=r"private address"):
        _fetch(_ctx(proj), url=f"http://[::ffff:127.0.0.1]:{port}/page")
    with pytest.raises(ToolError, match=r"private address 169.254.169.254"):
        _fetch(_ctx(proj), url="http://169.254.169.254/latest/meta-data/")


def test_deny_rule_wins_over_allow(proj: Path, site: str) -> None:
    ctx = _ctx(proj, deny=("Fetch(127.0.0.1)",))
    with pytest.raises(ToolError, match=r"blocked by permission rule 'Fetch\(127.0.0.1\)'"):
        _fetch(ctx, url=f"{site}/page")
    assert _Handler.hits == []


def test_every_redirect_hop_is_checked(proj: Path, site: str) -> None:
    ctx = _ctx(proj)
    followed = _fetch(ctx, url=f"{site}/hop")
    assert followed.text.startswith(f"[200 text/html] {site}/page")
    with pytest.raises(ToolError, match=r"private address 169.254.169.254"):
        _fetch(ctx, url=f"{site}/to-metadata")
    denied = _ctx(proj, allow=("Fetch(127.0.0.1)", "Fetch(localhost)"), deny=("Fetch(localhost)",))
    with pytest.raises(
        ToolError, match=r"localhost.* blocked by permission rule 'Fetch\(localhost\)'"
    ):
        _fetch(denied, url=f"{site}/to-localhost")
    assert "/page" not in _Handler.hits[-1:]
    with pytest.raises(ToolError, match=r"too many redirects"):
        _fetch(ctx, url=f"{site}/loop")


def test_only_http_urls(proj: Path) -> None:
    for url in ("file:///etc/passwd", "ftp://example.com/x", "http:///nohost", "not a url"):
        with pytest.raises(ToolError, match=r"http and https|no host|not a valid URL"):
            _fetch(_ctx(proj), url=url)


def test_asks_by_default_and_remembers_an_always_allow(proj: Path) -> None:
    """A public host with no rule: the user is asked; 'always allow' adds Fetch(host)."""
    events: list[Event] = []
    ctx = _ctx(proj, allow=(), attached=True, emit=events.append)
    gate = ctx.gate
    assert isinstance(gate, PermissionGate)

    async def scenario() -> list[str | None]:
        results: list[str | None] = []
        for answer in ("deny", "always allow 'Fetch(docs.example.com)' everywhere", None):
            before = len(events)
            call = asyncio.create_task(gate.authorize_fetch("https://docs.example.com/a", None))
            if answer is not None:
                while len(events) == before:
                    await asyncio.sleep(0)
                ask = events[-1]
                assert isinstance(ask, Ask)
                assert ask.question == "Allow fetch: https://docs.example.com/a"
                assert ask.choices == [
                    "allow once",
                    "always allow 'Fetch(docs.example.com)' in this project",
                    "always allow 'Fetch(docs.example.com)' everywhere",
                    "allow all fetch this session",
                    "deny",
                ]
                gate.broker.answer(ask.id, answer)
            results.append(await call)
        return results

    refused, allowed, again = asyncio.run(scenario())
    assert refused is not None and "DENIED" in refused
    assert allowed is None and again is None
    assert sum(isinstance(e, Ask) for e in events) == 2  # the third call was not asked
    assert "Fetch(docs.example.com)" in gate.rules.listing()["allow"]


def test_ask_rule_refuses_headless(proj: Path) -> None:
    ctx = _ctx(proj, allow=(), ask=("Fetch(*.example.com)",))
    refusal = asyncio.run(ctx.gate.authorize_fetch("https://api.example.com/", None))
    assert refusal is not None and "no user is attached" in refusal


def test_url_candidates() -> None:
    assert url_candidates("HTTPS://Docs.Example.com:443") == [
        "docs.example.com",
        "HTTPS://Docs.Example.com:443",
        "https://docs.example.com/",
    ]
    assert url_candidates("http://127.0.0.1:8080/x?q=1") == [
        "127.0.0.1",
        "127.0.0.1:8080",
        "http://127.0.0.1:8080/x?q=1",
    ]
    assert url_candidates("http://[::1]:9/")[0] == "[::1]"


def test_the_connection_goes_to_the_checked_address_under_the_real_host_name(
    proj: Path, site: str
) -> None:
    """A name is resolved once: the checked address is dialled (no second lookup that a
    rebinding DNS server could answer differently), the server still sees its name."""
    port = site.rsplit(":", 1)[1]
    ctx = _ctx(proj, allow=("Fetch(localhost)",))
    out = _fetch(ctx, url=f"http://localhost:{port}/plain")
    assert out.text == f"[200 text/plain] http://localhost:{port}/plain\n\njust text\n"
    assert _Handler.hosts == [f"localhost:{port}"]

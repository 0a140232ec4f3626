"""outline, repo_map and fetch driven by a scripted model through the real `rift -p`.

The unit tests pin each tool's output; these prove the wiring: the agent
offers the tools, hands repo_map the data dir for its cache, and puts fetch
behind the user's `Fetch(...)` rules.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from rift_bin import run_rift, write_json


class _Docs(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = (
            b"<html><body><h2>Usage</h2><p>Call <b>run()</b>.</p><script>x()</script></body></html>"
        )
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def docs() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Docs)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/guide"
    server.shutdown()
    server.server_close()


def _results(server: Any) -> dict[str, str]:
    last = server.chat_requests()[-1]["messages"]
    return {m["tool_call_id"]: str(m["content"]) for m in last if m["role"] == "tool"}


def test_scripted_model_uses_outline_repo_map_and_fetch(
    project: Path, fake_server: Any, docs: str
) -> None:
    (project / "engine.py").write_text("class Engine:\n    def start(self, fast: bool): ...\n")
    (project / "main.py").write_text("from engine import Engine\n\ndef main(): ...\n")
    write_json(
        Path(os.environ["XDG_CONFIG_HOME"]) / "rift/config.json",
        {"permissions": {"allow": ["Fetch(127.0.0.1)"]}},
    )
    calls = [
        {"id": "o", "name": "outline", "arguments": {"path": "engine.py"}},
        {"id": "m", "name": "codebase_map", "arguments": {}},  # an alias small models use
        {"id": "f", "name": "fetch", "arguments": {"url": docs}},
        {"id": "x", "name": "fetch", "arguments": {"url": "http://169.254.169.254/"}},
    ]
    model = fake_server({"turns": [{"tool_calls": calls}, {"content": "done"}]})
    run = run_rift(["-p", "look around", "--host", model.url, "-m", "fake-model"], project)
    assert run.returncode == 0, run.stderr
    results = _results(model)
    assert results["o"] == "    1\tclass Engine\n    2\t  def start(self, fast: bool)"
    assert results["m"].startswith("=== engine.py ===\n    1\tclass Engine")
    assert "=== main.py ===" in results["m"]
    assert results["f"] == f"[200 text/html] {docs}\n\n## Usage\n\nCall **run()**."
    assert results["x"].startswith("ERROR: http://169.254.169.254/ resolves to the private address")
    caches = Path(os.environ["XDG_DATA_HOME"]) / "rift/outline-cache"
    assert len(list(caches.glob("*.json"))) == 1

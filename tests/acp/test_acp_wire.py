"""The raw wire: bytes that are not JSON-RPC get a JSON-RPC error and the connection keeps
serving; unknown methods, bad params and unknown sessions are errors too; the unstable
`session/set_model` method works. Written against stdin/stdout directly, no SDK."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from acp_harness import MODEL, rift_argv
from acp_schema import WireChecker


class RawPeer:
    """`rift --acp` on pipes: write lines, read the JSON messages that come back.

    Used as a context manager: on a clean exit stdin is closed, rift must exit 0
    and every message it sent must pass the ACP schema.
    """

    def __init__(self, project: Path, host: str) -> None:
        self.stderr_path = project.parent / "rift-acp-raw.stderr"
        with self.stderr_path.open("wb") as stderr:
            self.proc = subprocess.Popen(
                [*rift_argv(), "--acp", "--host", host, "-m", MODEL],
                cwd=project,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=dict(os.environ),
            )
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.checker = WireChecker()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            message = json.loads(line)
            self.checker.rift_sent(message)
            self.inbox.put(message)

    def send(self, raw: bytes | dict[str, Any]) -> None:
        if isinstance(raw, dict):
            self.checker.client_sent(raw)
        data = raw if isinstance(raw, bytes) else json.dumps(raw).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def reply(self, request_id: Any, timeout: float = 20) -> dict[str, Any]:
        """The next response carrying `request_id` (notifications in between are skipped)."""
        while True:
            message = self.inbox.get(timeout=timeout)
            if "method" not in message and message.get("id") == request_id:
                return message

    def call(self, request_id: int, method: str, params: Any) -> dict[str, Any]:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return self.reply(request_id)

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=20)

    def __enter__(self) -> RawPeer:
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        code = self.close()
        if kind is None:
            assert code == 0
            assert self.checker.verify() > 0


def test_malformed_requests_get_errors_and_the_connection_keeps_serving(
    project: Path, fake_server: Any
) -> None:
    models = [
        {"name": MODEL, "capabilities": ["tools"], "context_length": 32768},
        {"name": "other-model", "capabilities": ["tools"], "context_length": 32768},
    ]
    server = fake_server({"models": models, "turns": [{"content": "still here"}]})
    with RawPeer(project, server.url) as peer:
        peer.send(b"this is not json {")
        assert peer.reply(None)["error"]["code"] == -32700
        peer.send(b"\xff\xfe\x00garbage")
        assert peer.reply(None)["error"]["code"] == -32700
        peer.send(b"[1, 2, 3]")
        assert peer.reply(None)["error"]["code"] == -32600
        peer.send({"jsonrpc": "2.0", "id": 40, "method": 5})
        assert peer.reply(40)["error"]["code"] == -32600

        init = peer.call(1, "initialize", {"protocolVersion": 1})
        assert init["result"]["protocolVersion"] == 1
        assert init["result"]["agentInfo"]["name"] == "rift"
        assert peer.call(2, "no/such/method", {})["error"]["code"] == -32601
        assert peer.call(3, "session/new", {"cwd": 5, "mcpServers": []})["error"]["code"] == -32602
        relative = peer.call(4, "session/new", {"cwd": "relative/dir", "mcpServers": []})
        assert relative["error"]["code"] == -32602
        sid = peer.call(5, "session/new", {"cwd": str(project), "mcpServers": []})["result"][
            "sessionId"
        ]

        switched = peer.call(6, "session/set_model", {"sessionId": sid, "modelId": "other-model"})
        assert switched == {"jsonrpc": "2.0", "id": 6, "result": {}}
        refused = peer.call(7, "session/set_model", {"sessionId": sid, "modelId": "nope"})
        assert "nope" in refused["error"]["message"]
        unknown = peer.call(8, "session/prompt", {"sessionId": "bogus", "prompt": []})
        assert unknown["error"]["code"] == -32602

        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "are you there?"}]}
        assert peer.call(9, "session/prompt", prompt)["result"] == {"stopReason": "end_turn"}
        assert server.chat_requests()[-1]["model"] == "other-model"


def test_json_rpc_strictness(project: Path, fake_server: Any) -> None:
    """Ids that JSON-RPC forbids, a missing or wrong `jsonrpc`, an unknown auth method and
    an unknown notification: each is answered (or ignored) the way JSON-RPC 2.0 says."""
    server = fake_server({"turns": []})
    with RawPeer(project, server.url) as peer:
        init = {"protocolVersion": 1}
        for bad_id in (1.5, {"n": 1}, [1], True):
            peer.send({"jsonrpc": "2.0", "id": bad_id, "method": "initialize", "params": init})
            error = peer.reply(None)
            assert error["error"]["code"] == -32600, bad_id
        peer.send({"id": 11, "method": "initialize", "params": init})
        assert peer.reply(11)["error"]["code"] == -32600
        peer.send({"jsonrpc": "1.0", "id": 12, "method": "initialize", "params": init})
        assert peer.reply(12)["error"]["code"] == -32600
        peer.send({"jsonrpc": "2.0", "method": "no/such/notification", "params": {}})
        peer.send({"jsonrpc": "2.0", "method": "_rift/unknown", "params": {}})
        assert peer.call(13, "initialize", init)["result"]["protocolVersion"] == 1
        unknown = peer.call(14, "authenticate", {"methodId": "no-such-method"})
        assert unknown["error"]["code"] == -32602
        assert "no-such-method" in unknown["error"]["message"]
        assert peer.inbox.empty()  # the notifications got no answer
    assert "Traceback" not in peer.stderr()

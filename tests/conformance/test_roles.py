"""`/roles` lists the configured model roles and checks each against its server; `/roles
ROLE MODEL` points one at another model (issue 44 item 8), over `rift --serve`."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

from .serve_session import ServeSession

MODELS = [
    {"name": "fake-model", "capabilities": ["tools"], "context_length": 32768},
    {"name": "small-model", "capabilities": ["tools"], "context_length": 8192},
]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _write_config(data: dict[str, Any]) -> None:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "rift" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def _info(session: ServeSession, start: str) -> str:
    event = session.expect("info", timeout=15)
    while not event["text"].startswith(start):
        event = session.expect("info", timeout=15)
    return str(event["text"])


def test_roles_lists_each_role_its_host_and_whether_it_is_served(fake_server, serve) -> None:
    far = f"http://127.0.0.1:{_closed_port()}/v1"
    _write_config(
        {
            "models": {"fast": "small-model", "gone": "missing-model", "remote": "far/big"},
            "providers": {"far": {"base_url": far}},
        }
    )
    server = fake_server({"models": MODELS})
    session: ServeSession = serve(server)
    assert "roles" in session.events[0]["commands"]
    session.send({"cmd": "roles"})
    lines = _info(session, "model roles:").splitlines()[1:]
    assert lines == [
        f"  main: fake-model at {server.url} — served",
        f"  fast: small-model at {server.url} — served",
        f"  gone: missing-model at {server.url} — not served (the server has:"
        " fake-model, small-model)",
        f"  remote: far/big at {far} — unreachable",
    ]
    assert session.close() == 0


def test_roles_role_model_points_a_role_at_another_model(fake_server, serve) -> None:
    _write_config({"models": {"fast": "missing-model"}})
    server = fake_server({"models": MODELS})
    session: ServeSession = serve(server)
    session.send({"cmd": "roles", "args": "fast small-model"})
    said = _info(session, "role fast")
    assert said == "role fast now uses small-model (was missing-model), for this session"
    session.send({"cmd": "roles"})
    assert f"  fast: small-model at {server.url} — served" in _info(session, "model roles:")
    session.send({"cmd": "roles", "args": "main small-model"})
    changed = session.expect("model_changed")
    assert changed["model"] == "small-model"
    session.send({"cmd": "roles", "args": "only-one-word"})
    warning = session.expect("warning")
    assert warning["text"] == "usage: /roles [ROLE MODEL] (no argument lists the roles)"
    assert session.close() == 0

"""Spawn → `initialize`: answered before the SDK and rift's core are imported.

The speed itself is measured by bench/acp_startup.py; this pins the import set
of the handshake path, and that both answers (rift's own, then the SDK's for a
repeated `initialize`) say the same thing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")

from test_acp_wire import RawPeer


def test_the_handshake_path_imports_neither_the_sdk_nor_the_core() -> None:
    code = (
        "import json, sys\n"
        "import rift.frontends.acp, rift.frontends.acp.handshake, rift.frontends.acp.transport\n"
        "rift.frontends.acp.handshake.initialize_result()\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    heavy = {
        m
        for m in loaded
        if m.split(".")[0] in ("acp", "pydantic", "httpx", "mcp")
        or m.startswith(("rift.core", "rift.models", "rift.tools"))
    }
    assert not heavy, sorted(heavy)


def test_the_early_answer_and_the_sdk_answer_agree(project: Path, fake_server: Any) -> None:
    server = fake_server({"turns": []})
    with RawPeer(project, server.url) as peer:
        params = {"protocolVersion": 1, "clientCapabilities": {"terminal": True}}
        early = peer.call(1, "initialize", params)["result"]
        again = peer.call(2, "initialize", params)["result"]
    assert early == again
    assert early["agentInfo"]["name"] == "rift"

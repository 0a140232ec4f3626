"""The schema check itself: the vendored schema is the one the SDK was generated from,
and the checker rejects what the schema rejects (so a clean run means something).

Every other test in this directory runs its messages through the same checker:
`acp_harness.connect` and `test_acp_wire.RawPeer` verify on a clean exit.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from acp_schema import SCHEMA_DIR, WireChecker

acp = pytest.importorskip("acp")


def test_vendored_schema_matches_the_sdk_version() -> None:
    sdk_schema = Path(acp.__file__).parent / "schema.py"
    ref = re.search(r"Schema ref: refs/tags/(schema-v[\d.]+)", sdk_schema.read_text())
    assert ref is not None
    assert f"`{ref.group(1)}`" in (SCHEMA_DIR / "README.md").read_text()
    meta = json.loads((SCHEMA_DIR / "meta.json").read_text())
    assert meta["version"] == acp.PROTOCOL_VERSION


def test_the_checker_rejects_what_the_schema_rejects() -> None:
    checker = WireChecker()
    checker.client_sent({"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {}})
    checker.rift_sent({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "finished"}})
    checker.rift_sent(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": {"sessionUpdate": "tool_call"}},
        }
    )
    checker.rift_sent({"id": 2, "result": {}})
    checker.rift_sent({"jsonrpc": "2.0", "id": 1.5, "error": {"code": -32600, "message": "x"}})
    problems = checker.problems()
    assert len(problems) == 4, problems
    assert "PromptResponse" in problems[0]
    assert "SessionNotification" in problems[1]


def test_the_checker_accepts_a_valid_exchange() -> None:
    checker = WireChecker()
    checker.client_sent({"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {}})
    checker.rift_sent({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}})
    checker.rift_sent({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "x"}})
    assert checker.verify() == 2

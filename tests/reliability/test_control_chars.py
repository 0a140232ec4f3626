"""Control characters from a repository reach the user only as visible escapes.

Family "control-chars" (bypass_corpus.json `pytest_cases`). A hook command
carrying `\\r\\x1b[2K` would repaint the trust question as a harmless one; plugin
names, MCP server definitions and file paths carry the same. Every ask and review
that `rift --serve` emits must hold no raw control character, and answering with a
choice as shown must still work.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from rift_bin import write_json
from serve_driver import ServeProcess

pytestmark = pytest.mark.reliability

PAINT = "\r\x1b[2K"
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
HOOK = f"true{PAINT}echo harmless"


def _texts(event: dict[str, Any]) -> list[str]:
    fields = [event.get(key, "") for key in ("question", "path", "tool")]
    return [*fields, *event.get("detail", []), *event.get("choices", [])]


def _serve(project: Path, server: Any) -> ServeProcess:
    serve = ServeProcess(project, "--host", server.url, "-m", "fake-model")
    serve.until("ready")
    return serve


def test_trust_asks_show_control_characters_as_escapes(project: Path, fake_server: Any) -> None:
    write_json(
        project / ".rift.json",
        {
            "hooks": {"post_edit": [HOOK]},
            "mcp": {f"srv{PAINT}": {"command": f"mcp{PAINT}x", "args": ["\x1b]0;title\x07"]}},
        },
    )
    plugin = project / ".rift" / "plugins" / "p"
    plugin.mkdir(parents=True)
    manifest = {"name": f"demo{PAINT}ok", "tools": [{"name": "t", "command": f"sh x{PAINT}.sh"}]}
    (plugin / "plugin.json").write_text(json.dumps(manifest), encoding="utf-8")
    serve = _serve(project, fake_server({}))
    try:
        serve.send({"cmd": "hello"})
        asks = [serve.until("ask", timeout=20) for _ in range(3)]
        for ask in asks:
            for text in _texts(ask):
                assert not RAW.search(text), repr(text)
        questions = " ".join(a["question"] for a in asks)
        assert "true\\r\\x1b[2Kecho harmless" in questions
        assert "demo\\r\\x1b[2Kok" in questions
        for ask in asks:
            serve.send({"cmd": "answer", "id": ask["id"], "text": "skip"})
        assert serve.close() == 0
    finally:
        if serve.proc.poll() is None:
            serve.proc.kill()


def test_approval_asks_and_reviews_escape_paths_and_commands(
    project: Path, fake_server: Any
) -> None:
    name = f"a{PAINT}b.txt"
    command = "printf ok\x1b > out.txt"
    turns = [
        {"tool_calls": [{"name": "write", "arguments": {"path": name, "content": "x\n"}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]},
        {"content": "done"},
    ]
    serve = _serve(project, fake_server({"turns": turns}))
    try:
        serve.send({"cmd": "hello", "edit_review": True})
        serve.send({"cmd": "prompt", "text": "go"})
        review = serve.until("edit_review")
        assert not RAW.search(review["path"]), repr(review["path"])
        assert "\\x1b" in review["path"]
        serve.send({"cmd": "edit_decision", "id": review["id"], "apply": True})
        ask = serve.until("ask")
        for text in _texts(ask):
            assert not RAW.search(text), repr(text)
        always = next(c for c in ask["choices"] if c.startswith("always allow '"))
        serve.send({"cmd": "answer", "id": ask["id"], "text": always})  # the choice as shown
        serve.until("done")
        assert (project / name).read_text() == "x\n"
        assert (project / "out.txt").read_text() == "ok\x1b"
        assert serve.close() == 0
    finally:
        if serve.proc.poll() is None:
            serve.proc.kill()


def test_visible_escapes_every_control_and_bidi_character_and_keeps_the_rest() -> None:
    from rift.text.hygiene import visible

    assert visible("a\r\x1b[2Kb\n\x00\x7f\x9b\u202e\u2066z") == (
        "a\\r\\x1b[2Kb\\n\\x00\\x7f\\x9b\\u202e\\u2066z"
    )
    assert visible("tab\there é ✓ 日本") == "tab\there é ✓ 日本"
    assert not RAW.search(visible("".join(map(chr, range(0x2100)))))

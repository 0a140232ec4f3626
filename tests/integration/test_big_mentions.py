"""`@big_module.py` attaches the outline of a big source file, not a 48 KB head (issue 32)."""

from __future__ import annotations

import json
from typing import Any


def _big_module(functions: int) -> str:
    return "".join(
        f"def handler_{i}(request, retries=3):\n"
        f'    """Handle request kind {i}."""\n' + "    total = 0\n" * 20 + "    return total\n\n"
        for i in range(functions)
    )


def test_a_big_mentioned_source_file_is_attached_as_its_outline(harness: Any) -> None:
    source = _big_module(300)
    assert len(source.encode()) > 48_000
    (harness.project / "service.py").write_text(source)
    server = harness.server([{"content": "looked"}])
    run = harness.run("what does handler_250 do? @service.py", server)
    assert run.code == 0, run.describe()
    prompt = json.dumps(server.chat_requests()[0]["messages"][-1]["content"])
    assert 'outline=\\"true\\"' in prompt
    assert "def handler_250(request, retries=3)" in prompt  # the last functions are named too
    assert "total = 0" not in prompt  # bodies are not attached
    assert len(prompt) < 30_000


def test_a_small_mentioned_file_is_still_attached_whole(harness: Any) -> None:
    (harness.project / "small.py").write_text(_big_module(3))
    server = harness.server([{"content": "looked"}])
    run = harness.run("look at @small.py", server)
    assert run.code == 0, run.describe()
    prompt = json.dumps(server.chat_requests()[0]["messages"][-1]["content"])
    assert "total = 0" in prompt and "outline=" not in prompt

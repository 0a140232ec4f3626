"""A long prompt's read is reported as `prefill_progress` (additive, issue 44 item 8).

llama.cpp's server, asked with `return_progress`, streams `prompt_progress` chunks
while it reads the prompt; `rift --serve` relays each one as an event, with the
server's reading speed, before the first text of the answer.
"""

from __future__ import annotations

from typing import Any

from fakes.fake_server import FakeModelServer

from .serve_session import ServeSession

LLAMA_PROPS = {"default_generation_settings": {"n_ctx": 32768}, "total_slots": 1}


def _serve(server: Any, project: Any) -> ServeSession:
    session = ServeSession(["--host", f"{server.url}/v1", "-m", "fake-model"], project)
    session.read_until("context")
    return session


def test_a_long_prompt_read_streams_prefill_progress_before_the_answer(
    fake_server: Any, project: Any
) -> None:
    progress = [[1024, 4096, 512, 500], [4096, 4096, 512, 2000]]
    script = {
        "wire": "openai",
        "props": LLAMA_PROPS,
        "turns": [{"prompt_progress": progress, "content": "read it"}],
    }
    server: FakeModelServer = fake_server(script)
    session = _serve(server, project)
    try:
        session.prompt("a long prompt")
        events = session.read_until("done")
        assert session.close() == 0
    finally:
        session.kill()
    assert server.chat_requests()[0]["return_progress"] is True
    names = [e["event"] for e in events]
    readings = [e for e in events if e["event"] == "prefill_progress"]
    assert readings == [
        {"event": "prefill_progress", "processed": 1024, "total": 4096, "cached": 512,
         "tokens_per_sec": 1024.0},
        {"event": "prefill_progress", "processed": 4096, "total": 4096, "cached": 512,
         "tokens_per_sec": 1792.0},
    ]  # fmt: skip
    assert names.index("prefill_progress") < names.index("content")


def test_a_server_that_reports_no_progress_sends_no_prefill_event(
    fake_server: Any, project: Any
) -> None:
    script = {"wire": "openai", "turns": [{"prompt_progress": [[1, 2, 0, 5]], "content": "ok"}]}
    server: FakeModelServer = fake_server(script)  # no /props: not llama.cpp, not asked
    session = _serve(server, project)
    try:
        session.prompt("hi")
        events = session.read_until("done")
    finally:
        session.kill()
    assert "return_progress" not in server.chat_requests()[0]
    assert not [e for e in events if e["event"] == "prefill_progress"]

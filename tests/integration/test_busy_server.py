"""A busy server (429, 503) is tried again after a pause, with a visible warning (issue 31)."""

from __future__ import annotations

import re
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(("status", "openai"), [(503, True), (429, False)])
def test_a_busy_answer_is_retried_with_a_warning(harness: Any, status: int, openai: bool) -> None:
    turns = [{"status": status, "error": "Loading model"}, {"content": "ready now"}]
    server = harness.server(turns)
    run = harness.run("hi", server, openai=openai)
    assert run.code == 0, run.describe()
    assert run.result["reply"] == "ready now"
    assert f"busy ({status}: Loading model); trying again in 1 s (1/3)" in run.stderr
    assert len(server.chat_requests()) == 2


def test_other_errors_are_not_retried(harness: Any) -> None:
    server = harness.server([{"status": 500, "error": "boom"}, {"content": "never"}])
    run = harness.run("hi", server, openai=True)
    assert run.code != 0
    assert "busy" not in run.stderr and "boom" in run.stderr
    assert len(server.chat_requests()) == 1


def test_a_long_prompt_read_with_progress_is_not_a_timeout(
    harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """llama.cpp reports prompt progress when asked: the wait is explained, and a read far
    longer than the read-idle timeout is not mistaken for silence."""
    monkeypatch.setenv("RIFT_READ_TIMEOUT", "1.5")
    props = {"default_generation_settings": {"n_ctx": 32768}, "total_slots": 1}
    progress = [[512 * i, 6000, 100] for i in range(1, 12)]
    turn = {"prompt_progress": progress, "chunk_delay": 0.5, "content": "read it all"}
    server = harness.server([turn], wire="openai", props=props)
    run = harness.run("hi", server, openai=True)
    assert run.code == 0, run.describe()
    assert run.result["reply"] == "read it all"
    assert server.chat_requests()[0]["return_progress"] is True
    note = r"the model server is reading the prompt: [\d,]+ of 6,000 tokens \(100 from its cache\)"
    assert re.search(note, run.stderr), run.describe()


def test_other_servers_are_not_asked_for_progress(harness: Any) -> None:
    server = harness.server([{"content": "ok"}], wire="openai")
    run = harness.run("hi", server, openai=True)
    assert run.code == 0, run.describe()
    assert "return_progress" not in server.chat_requests()[0]

"""A busy server (429, 503) is tried again after a pause, with a visible warning (issue 31)."""

from __future__ import annotations

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

"""Every request of a turn appends to the previous one, byte for byte (issue 45): a
server's prompt cache (llama.cpp's, and the hybrid and sliding-window models' that
re-prefill everything when earlier history changes) then reuses all of it."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

FIVE_STEPS = [
    {
        "thinking": "Look at the file first.",
        "tool_calls": [{"name": "read", "arguments": {"path": "app.py"}}],
    },
    {
        "thinking": "Run it.",
        "tool_calls": [{"name": "bash", "arguments": {"command": "python3 app.py"}}],
    },
    {
        "thinking": "Fix the greeting.",
        "tool_calls": [
            {
                "name": "edit",
                "arguments": {"path": "app.py", "old_string": "helo", "new_string": "hello"},
            }
        ],
    },
    {
        "thinking": "Check again.",
        "tool_calls": [{"name": "bash", "arguments": {"command": "python3 app.py"}}],
    },
    {"thinking": "Done.", "content": "Fixed the greeting in app.py."},
]


def _messages(request: dict[str, Any]) -> list[str]:
    return [json.dumps(m, sort_keys=True) for m in request["messages"]]


@pytest.mark.parametrize("model", ["fake-model", "qwen2.5-coder:1.5b"])
def test_each_request_of_a_five_step_turn_extends_the_previous(harness: Any, model: str) -> None:
    """The small-model name turns on its drive (preread, whole-file rewrites)."""
    (harness.project / "app.py").write_text("print('helo')\n" + "x = 1\n" * 40)
    server = harness.server(FIVE_STEPS, models=[{"name": model, "context_length": 32768}])
    run = harness.run("fix the greeting in app.py", server, "-m", model, openai=True)
    assert run.code == 0, run.describe()
    requests = [_messages(r) for r in server.chat_requests()]
    assert len(requests) == 5
    _assert_prefix_extensions(requests)


def _assert_prefix_extensions(requests: list[list[str]]) -> None:
    for n, (before, after) in enumerate(itertools.pairwise(requests), 2):
        assert len(after) > len(before), f"request {n} is not longer than request {n - 1}"
        changed = [i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b]
        assert not changed, (
            f"request {n} rewrote message {changed[0]} of request {n - 1}:\n"
            f"was: {before[changed[0]][:400]}\nnow: {after[changed[0]][:400]}"
        )


PROSE_TWICE = [
    {"content": "You should change helo to hello in app.py."},
    {"content": "Change the string helo to hello."},
    *FIVE_STEPS[2:],
]


@pytest.mark.xfail(
    strict=True,
    reason="core/loop/turn.py Turn._greedy_retry cuts the history back to the prompt"
    " (`del self.messages[at[0] + 1 :]`): request 3 is shorter than request 2; the lead owns"
    " the fix (issue 45)",
)
def test_apply_nudge_and_greedy_retry_keep_the_history_a_prefix(harness: Any) -> None:
    """A model that twice describes the fix in prose instead of making it: the apply nudge
    and the greedy retry must add to the conversation, not cut it back."""
    (harness.project / "app.py").write_text("print('helo')\n" + "x = 1\n" * 40)
    server = harness.server(PROSE_TWICE)
    run = harness.run("fix the greeting in app.py", server, openai=True)
    assert run.code == 0, run.describe()
    requests = [_messages(r) for r in server.chat_requests()]
    assert len(requests) == 5
    _assert_prefix_extensions(requests)


@pytest.mark.xfail(
    strict=True,
    reason="core/loop/turn.py Turn._step sends the last round with_tools=False and _query then"
    " sends no tool schemas: the rendered prompt's head (system + tools) changes, so the"
    " server re-reads everything; the lead owns the fix (issue 45)",
)
def test_the_last_round_keeps_the_tool_list(harness: Any) -> None:
    """At --max-iterations the wrap-up request must still carry the same tool schemas
    (the template renders them into the prompt's head); only the answer changes."""
    (harness.project / "app.py").write_text("print('helo')\n" + "x = 1\n" * 40)
    server = harness.server(FIVE_STEPS)
    run = harness.run("fix the greeting in app.py", server, "--max-iterations", "5", openai=True)
    assert run.result["outcome"] == "wrapped", run.describe()
    tools = [json.dumps(r.get("tools"), sort_keys=True) for r in server.chat_requests()]
    assert len(tools) == 5
    assert len(set(tools)) == 1, "a request changed the tool list"

"""Tool calls and thinking left in the reply's text (issue 31): run as calls, never shown
as prose, never stored as the reply or written into a file; `<think>` goes to thinking."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rift_bin import sessions_dir

pytestmark = pytest.mark.timeout(60)

EDIT = {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}
CALL = json.dumps({"name": "edit", "arguments": EDIT})


def _fixes(harness: Any, first: str, *, openai: bool) -> Any:
    (harness.project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    turns = [{"content": first}, {"content": "<think>checked the diff</think>\n\nFixed it."}]
    server = harness.server(turns)
    run = harness.run("fix add in calc.py", server, json_output=False, openai=openai)
    assert run.code == 0, run.describe()
    assert (harness.project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    for leaked in ("<tool_call>", "old_string", "```", "<think>", "checked the diff"):
        assert leaked not in run.stdout, run.describe()
    assert "Fixed it." in run.stdout
    return run


@pytest.mark.parametrize("openai", [False, True])
@pytest.mark.parametrize(
    "first",
    [
        f"I'll fix it.\n<tool_call>\n{CALL}\n</tool_call>",
        f"Here is the call:\n```json\n{CALL}\n```",
        CALL,
    ],
    ids=["tagged", "fenced", "bare"],
)
def test_a_text_call_runs_and_is_never_shown(harness: Any, first: str, openai: bool) -> None:
    _fixes(harness, first, openai=openai)
    (path,) = sessions_dir().glob("*.json")
    messages = json.loads(path.read_text())["messages"]
    assistant = [m for m in messages if m["role"] == "assistant"]
    assert assistant[0]["tool_calls"][0]["function"]["name"] == "edit"
    assert "<tool_call>" not in assistant[0]["content"]
    assert "old_string" not in assistant[0]["content"]
    assert assistant[1]["content"] == "Fixed it."
    assert assistant[1].get("thinking") == "checked the diff"


def test_the_text_call_goes_back_to_the_server_as_a_structured_call(harness: Any) -> None:
    run = _fixes(harness, f"<tool_call>{CALL}</tool_call>", openai=True)
    history = run.server.chat_requests()[1]["messages"]
    sent = next(m for m in history if m["role"] == "assistant")
    assert sent["tool_calls"][0]["function"]["name"] == "edit"
    assert "<tool_call>" not in (sent.get("content") or "")


def test_reasoning_goes_back_to_a_self_hosted_server_between_tool_calls(harness: Any) -> None:
    (harness.project / "a.py").write_text("x = 1\n")
    turns = [
        {
            "thinking": "read a.py first",
            "tool_calls": [{"name": "read", "arguments": {"path": "a.py"}}],
        },
        {"content": "x is 1."},
    ]
    server = harness.server(turns)
    run = harness.run("what is x in a.py", server, openai=True)
    assert run.code == 0, run.describe()
    sent = [m for m in server.chat_requests()[1]["messages"] if m["role"] == "assistant"]
    assert sent[0]["reasoning_content"] == "read a.py first"

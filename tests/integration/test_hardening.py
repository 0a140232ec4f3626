"""Local-model hardening end to end.

Each test scripts a misbehaving model on the fake server, runs `rift -p`, and
checks the repair from the outside: files on disk, warnings on stderr, the
session file, and what rift sent back to the server.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from rift.core.loop.hardening import APPLY_NUDGE, STUCK_NUDGE, WRAP_UP_WARNING

TEXTUAL_CALL = {"name": "write", "arguments": {"path": "out.txt", "content": "recovered\n"}}


@pytest.mark.parametrize(
    ("content", "openai"),
    [
        (json.dumps(TEXTUAL_CALL), False),
        ("```json\n" + json.dumps(TEXTUAL_CALL, indent=2) + "\n```", False),
        ("```json\n" + json.dumps(TEXTUAL_CALL, indent=2) + "\n```", True),
        (json.dumps([{"name": "write", "parameters": TEXTUAL_CALL["arguments"]}]), False),
    ],
    ids=["bare", "fenced", "fenced-openai", "array-with-parameters"],
)
def test_textual_tool_call_is_recovered(harness: Any, content: str, openai: bool) -> None:
    server = harness.server([{"content": content}, {"content": "done"}])
    run = harness.run("create out.txt", server, openai=openai)
    assert run.code == 0, run.describe()
    assert (harness.project / "out.txt").read_text() == "recovered\n"
    assert "warning: model emitted a textual tool call; recovered it" in run.stderr
    assert run.result["tools"] == [{"name": "write", "ok": True}]
    assert run.result["reply"].endswith("done")
    assistant = run.session()["messages"][2]
    assert assistant["content"] == ""  # the JSON text became a real call
    assert assistant["tool_calls"][0]["function"]["name"] == "write"


def test_bare_call_lines_each_run_once_and_a_repeat_ends_the_reply(harness: Any) -> None:
    """Seen with the 0.5B model on llama-server: one bare JSON call a line, the same few
    calls over and over. Only the first was a call; the rest (8,720 characters) was stored
    as the reply and the next request overflowed the server's window."""
    (harness.project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    ls = {"name": "ls", "arguments": {"path": "."}}
    edit = {
        "name": "edit",
        "arguments": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"},
    }
    lines = "".join(json.dumps(c) + "\n" for c in (ls, edit)) * 12
    server = harness.server([{"content": lines}, {"content": "fixed"}])
    run = harness.run("fix add in calc.py", server)
    assert run.code == 0, run.describe()
    assert (harness.project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert run.result["tools"] == [{"name": "ls", "ok": True}, {"name": "edit", "ok": True}]
    assert "the model began repeating its tool calls; rift stopped the reply" in run.stderr
    assistant = run.session()["messages"][2]
    assert assistant["content"] == ""
    assert [c["function"]["name"] for c in assistant["tool_calls"]] == ["ls", "edit"]


def test_json_naming_an_unknown_tool_stays_text(harness: Any) -> None:
    content = json.dumps({"name": "launch_rockets", "arguments": {"n": 3}})
    server = harness.server([{"content": content}])
    run = harness.run("what would you call?", server)
    assert run.code == 0, run.describe()
    assert run.result["tools"] == []
    assert run.result["reply"] == content
    assert "recovered" not in run.stderr


def test_tool_name_alias_runs_the_real_tool(harness: Any) -> None:
    (harness.project / "notes.txt").write_text("alpha\n")
    server = harness.server(
        [
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
            {"tool_calls": [{"name": "run_command", "arguments": {"command": "echo via-alias"}}]},
            {"content": "ok"},
        ]
    )
    run = harness.run("look at notes.txt", server)
    assert run.code == 0, run.describe()
    assert run.result["tools"] == [{"name": "read", "ok": True}, {"name": "bash", "ok": True}]
    results = [m for m in run.session()["messages"] if m["role"] == "tool"]
    assert results[0]["content"] == "    1\talpha\n"
    assert results[1]["content"] == "via-alias\n"
    # The result keeps the name the model asked for, so it can correlate it.
    assert [r["tool_name"] for r in results] == ["read_file", "run_command"]


def test_missing_tool_call_ids_are_synthesized(harness: Any) -> None:
    # The Ollama wire sends no ids unless the script gives one.
    server = harness.server(
        [
            {
                "tool_calls": [
                    {"name": "ls", "arguments": {}},
                    {"name": "glob", "arguments": {"pattern": "*"}},
                ]
            },
            {"content": "ok"},
        ]
    )
    run = harness.run("list things", server)
    assert run.code == 0, run.describe()
    messages = run.session()["messages"]
    ids = [c["id"] for c in messages[2]["tool_calls"]]
    assert ids == ["call_2_0", "call_2_1"]
    assert [m["tool_call_id"] for m in messages[3:5]] == ids
    # ...and the next request already carries them.
    sent = server.chat_requests()[1]["messages"]
    assert [c["id"] for c in sent[2]["tool_calls"]] == ids
    assert [m["tool_call_id"] for m in sent[3:5]] == ids


def test_leaked_template_tokens_are_stripped(harness: Any) -> None:
    server = harness.server([{"content": ["All done.", "<|im_end|>", "<|eot_id|>"]}])
    run = harness.run("hi", server)
    assert run.code == 0, run.describe()
    assert run.result["reply"] == "All done."
    assert "warning: stripped leaked template tokens from output" in run.stderr
    assert run.session()["messages"][-1]["content"] == "All done."


def test_third_identical_call_is_refused(harness: Any) -> None:
    (harness.project / "a.txt").write_text("a\n")
    same = {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]}
    server = harness.server([same, same, same, {"content": "ok"}])
    run = harness.run("read a.txt", server)
    assert run.code == 0, run.describe()
    assert [t["ok"] for t in run.result["tools"]] == [True, True, False]
    assert run.stderr.count("called 3x with identical arguments; refusing the repeat") == 1
    last = [m for m in run.session()["messages"] if m["role"] == "tool"][-1]
    assert last["content"].startswith("ERROR: repeated identical tool call refused")


def _missing_reads(n: int) -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"name": "read", "arguments": {"path": f"missing_{i}.txt"}}]}
        for i in range(n)
    ]


def test_stuck_turn_is_nudged_at_4_failures_and_ended_at_7(harness: Any) -> None:
    server = harness.server([*_missing_reads(8), {"content": "never reached"}])
    run = harness.run("read the files", server)
    assert run.code == 3, run.describe()  # a stopped turn is not a success
    requests = server.chat_requests()
    assert len(requests) == 7  # the 7th failure ends the turn without asking again
    nudged = [STUCK_NUDGE in json.dumps(r["messages"]) for r in requests]
    assert nudged == [False] * 4 + [True] * 3
    assert "stopping the turn: 7 tool calls in a row failed" in run.stderr
    assert [t["ok"] for t in run.result["tools"]] == [False] * 7
    run.session()  # still valid: every call answered


def test_a_success_resets_the_stuck_count(harness: Any) -> None:
    (harness.project / "real.txt").write_text("real\n")
    ok = {"tool_calls": [{"name": "read", "arguments": {"path": "real.txt"}}]}
    script = [*_missing_reads(3), ok, *_missing_reads(3), {"content": "fine"}]
    server = harness.server(script)
    run = harness.run("read the files", server)
    assert run.result["reply"] == "fine"
    assert not any(STUCK_NUDGE in json.dumps(r["messages"]) for r in server.chat_requests())


def test_stuck_nudge_follows_all_results_of_a_batched_call(harness: Any) -> None:
    """Several failing calls in one message: the nudge must not split their results."""
    calls = [{"name": "read", "arguments": {"path": f"gone_{i}.txt"}} for i in range(5)]
    server = harness.server([{"tool_calls": calls}, {"content": "ok"}])
    run = harness.run("read them", server, openai=True)
    assert run.code == 0, run.describe()
    sent = server.chat_requests()[1]["messages"]
    assert [m["role"] for m in sent[2:]] == ["assistant"] + ["tool"] * 5 + ["user"]
    assert sent[-1]["content"] == STUCK_NUDGE


def test_wrap_up_warns_two_rounds_early_and_the_last_round_has_no_tools(harness: Any) -> None:
    rounds = [
        {"tool_calls": [{"name": "ls", "arguments": {"path": "."}}]},
        {"tool_calls": [{"name": "glob", "arguments": {"pattern": "*"}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "echo three"}}]},
        {"content": "Summary: listed files; nothing left."},
    ]
    server = harness.server(rounds)
    run = harness.run("look around", server, "--max-iterations", "4")
    assert run.code == 4, run.describe()  # the budget ran out: cut off, not answered
    assert run.result["outcome"] == "wrapped"
    requests = server.chat_requests()
    assert len(requests) == 4
    warned = [WRAP_UP_WARNING in json.dumps(r["messages"]) for r in requests]
    assert warned == [False, True, True, True]
    assert [bool(r.get("tools")) for r in requests] == [True, True, True, False]
    assert run.result["reply"] == "Summary: listed files; nothing left."
    assert run.result["stats"]["iterations"] == 4


def test_apply_nudge_fires_once_for_code_without_a_change(harness: Any) -> None:
    (harness.project / "hello.py").write_text("print('hi')\n")
    code = "Here you go:\n```python\ndef greet():\n    return 'hi'\n```"
    server = harness.server([{"content": code}, {"content": code}, {"content": "third"}])
    run = harness.run("add a greet function to hello.py", server)
    assert run.code == 0, run.describe()
    requests = server.chat_requests()
    assert len(requests) == 3  # the third is the headless greedy retry (no nudge again)
    assert [APPLY_NUDGE in json.dumps(r["messages"]) for r in requests] == [False, True, False]
    assert "You have not changed any project files" in requests[1]["messages"][-1]["content"]


@pytest.mark.parametrize(
    ("prompt", "script"),
    [
        ("what does greet() return?", [{"content": "It returns the string hi."}]),
        (
            "add a greet function to hello.py",
            [
                {"tool_calls": [{"name": "write", "arguments": {"path": "g.py", "content": "x"}}]},
                {"content": "Done:\n```python\nx\n```"},
            ],
        ),
    ],
    ids=["a-reply-showing-no-code", "files-already-changed"],
)
def test_apply_nudge_stays_quiet(harness: Any, prompt: str, script: list[Any]) -> None:
    server = harness.server([*script, {"content": "extra"}])
    run = harness.run(prompt, server)
    assert run.code == 0, run.describe()
    assert len(server.chat_requests()) == len(script)
    assert not any(APPLY_NUDGE in json.dumps(r["messages"]) for r in server.chat_requests())

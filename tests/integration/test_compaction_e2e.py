"""Two-stage compaction end to end.

`--num-ctx 6000` gives a 3000-token budget (never below num_ctx // 2). The
resumed session's history overflows it; rift must prune old tool output
(stage 1) and, when that is not enough, have the model summarize everything
before the current turn (stage 2) — all before the turn's own request.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from rift.core.sessions.store import COMPACTED_PREFIX

BIG = 14_000  # characters: ~3500 tokens, over the whole budget on its own
SUMMARY = "## Goal\nShip it.\n## Constraints\nNone.\n## Progress\nRead big.txt twice."


def _turn(prompt: str, call_id: str, output: str, answer: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": prompt},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": call_id, "function": {"name": "read", "arguments": {"path": "big.txt"}}}
            ],
        },
        {"role": "tool", "content": output, "tool_name": "read", "tool_call_id": call_id},
        {"role": "assistant", "content": answer},
    ]


def _session(path: Path, project: Path, *turns: list[dict[str, Any]]) -> Path:
    messages = [{"role": "system", "content": "old system prompt"}]
    for turn in turns:
        messages += turn
    data = {"model": "fake-model", "saved_at": int(time.time()), "cwd": str(project)}
    path.write_text(json.dumps({**data, "messages": messages}), encoding="utf-8")
    return path


def _infos(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("compact")]


def test_stage_one_prunes_old_tool_output(harness: Any, tmp_path: Path) -> None:
    old = _turn("first: look at big.txt", "c1", "A" * BIG, "it is big")
    recent = _turn("second: again", "c2", "B" * 300, "still big")
    saved = _session(tmp_path / "s.json", harness.project, old, recent)
    server = harness.server([{"content": "third answer"}])
    run = harness.run("third: what now?", server, "--resume", str(saved), "--num-ctx", "6000")
    assert run.code == 0, run.describe()

    infos = _infos(run.stderr)
    assert len(infos) == 1, run.stderr
    assert infos[0].startswith("compacted: pruned 1 old outputs (~")
    assert infos[0].endswith("tok, budget 3000)")
    [request] = server.chat_requests()  # no summary was needed
    tool_results = [m["content"] for m in request["messages"] if m["role"] == "tool"]
    assert tool_results[0].startswith("A" * 200 + "\n[… ")
    assert "bytes elided by compaction; re-run the tool if you need it]" in tool_results[0]
    assert tool_results[1] == "B" * 300  # the last two turns are never pruned
    saved_tool = next(m for m in run.session()["messages"] if m.get("tool_call_id") == "c1")
    assert len(saved_tool["content"]) < 400


def test_stage_two_summarizes_earlier_turns(harness: Any, tmp_path: Path) -> None:
    first = _turn("first: look at big.txt", "c1", "A" * BIG, "it is big")
    second = _turn("second: and the copy", "c2", "B" * BIG, "also big")
    saved = _session(tmp_path / "s.json", harness.project, first, second)
    server = harness.server(
        [{"match": "Transcript:", "content": SUMMARY}, {"content": "third answer"}]
    )
    run = harness.run("third: what now?", server, "--resume", str(saved), "--num-ctx", "6000")
    assert run.code == 0, run.describe()
    assert run.result["reply"] == "third answer"

    infos = _infos(run.stderr)
    assert infos[0].startswith("compacted: pruned 1 old outputs")
    assert infos[1] == "compacting: summarizing earlier conversation…"
    assert infos[2].startswith("compacted: history summarized (~")

    summary_request, turn_request = server.chat_requests()
    assert not summary_request.get("tools")
    assert summary_request["options"]["temperature"] == 0
    assert summary_request["options"]["num_predict"] == 1500
    assert summary_request["options"]["num_ctx"] == 6000
    assert summary_request["think"] is False
    transcript = summary_request["messages"][1]["content"]
    assert transcript.startswith("Transcript:")
    assert "USER: first: look at big.txt" in transcript
    assert 'ASSISTANT CALLED: read({"path": "big.txt"})' in transcript
    assert "USER: second: and the copy" in transcript
    assert "third: what now?" not in transcript  # the current turn is kept, not summarized

    sent = turn_request["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "user"]
    assert sent[1]["content"] == COMPACTED_PREFIX + SUMMARY
    assert sent[2]["content"].startswith("[Resumed session.")  # the files it touched
    assert sent[2]["content"].endswith("]\n\nthird: what now?")
    assert turn_request["tools"]

    stored = [m["content"] for m in run.session()["messages"][1:]]
    assert stored[0] == COMPACTED_PREFIX + SUMMARY and stored[2] == "third answer"
    assert stored[1].endswith("]\n\nthird: what now?")


def test_failed_summary_keeps_working_pruned(harness: Any, tmp_path: Path) -> None:
    first = _turn("first: look at big.txt", "c1", "A" * BIG, "it is big")
    second = _turn("second: and the copy", "c2", "B" * BIG, "also big")
    saved = _session(tmp_path / "s.json", harness.project, first, second)
    server = harness.server(
        [
            {"match": "Transcript:", "status": 500, "error": "out of memory"},
            {"content": "third answer"},
        ]
    )
    run = harness.run("third: what now?", server, "--resume", str(saved), "--num-ctx", "6000")
    assert run.code == 0, run.describe()
    assert run.result["reply"] == "third answer"
    assert "warning: summarization failed (" in run.stderr
    assert "out of memory" in run.stderr
    assert "continuing pruned" in run.stderr
    # The turn still ran on the pruned history, which kept both earlier prompts.
    turn_request = server.chat_requests()[1]
    contents = [m["content"] for m in turn_request["messages"] if m["role"] == "user"]
    assert contents[:2] == ["first: look at big.txt", "second: and the copy"]
    assert contents[2].endswith("]\n\nthird: what now?")  # after the resume note
    run.session()


def test_a_long_turn_prunes_its_own_older_outputs(harness: Any) -> None:
    """One turn can outgrow the window on its own (a `-p` task is one turn): the earlier
    steps' long results are shortened before a request would pass the budget; the result
    the model asked for last stays whole. Before, such a request went out over the window
    (llama-server: 400 "exceeds the available context size")."""
    (harness.project / "big.txt").write_text("".join(f"{'A' * 69}\n" for _ in range(200)))
    (harness.project / "small.txt").write_text("tiny\n")
    server = harness.server(
        [
            {"tool_calls": [{"name": "read", "arguments": {"path": "big.txt"}}]},
            {"tool_calls": [{"name": "read", "arguments": {"path": "small.txt"}}]},
            {"content": "both read"},
        ]
    )
    run = harness.run("read big.txt then small.txt", server, "--num-ctx", "6000")
    assert run.code == 0, run.describe()
    _, second, third = server.chat_requests()
    results = [m["content"] for m in third["messages"] if m["role"] == "tool"]
    assert "bytes elided by compaction; re-run the tool if you need it]" in results[0]
    assert len(results[0]) < 400
    assert results[1].endswith("tiny\n")
    big = [m["content"] for m in second["messages"] if m["role"] == "tool"]
    assert len(big[0]) > 14_000  # the step just asked for is never shortened
    assert any(line.startswith("compacted: pruned 1 earlier outputs of this turn") for line in
               _infos(run.stderr)), run.stderr  # fmt: skip

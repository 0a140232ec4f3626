"""Token accounting and compaction; the summary stage runs against the fake model server."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rift.core.context.budget import (
    CompactionCounts,
    TokenMeter,
    budget,
    enforce_budget,
    estimate_messages,
    estimate_text,
    estimate_tools,
    prune_old_outputs,
    strip_old_thinking,
    summarize,
    truncation_suspected,
    truncation_warning,
)
from rift.core.sessions.store import COMPACTED_PREFIX, INTERRUPT_NOTE
from rift.models.base import Message

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "read",
            "description": "Read a file.",
            "parameters": {"type": "object"},
        },
    }
]


def _turn(n: int, *, output: str = "out", thinking: str = "") -> list[Message]:
    call: Message = {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": f"c{n}", "function": {"name": "read", "arguments": {"path": f"f{n}"}}}
        ],
    }
    if thinking:
        call["thinking"] = thinking
    return [
        {"role": "user", "content": f"prompt {n}"},
        call,
        {"role": "tool", "content": output, "tool_name": "read", "tool_call_id": f"c{n}"},
        {"role": "assistant", "content": f"reply {n}"},
    ]


def _conversation(turns: int, **kw: Any) -> list[Message]:
    messages: list[Message] = [{"role": "system", "content": "you are rift"}]
    for n in range(turns):
        messages += _turn(n, **kw)
    return messages


# ---------------------------------------------------------------- estimates


def test_estimate_text_is_bytes_over_four_plus_one() -> None:
    assert estimate_text("") == 1
    assert estimate_text("abc") == 1
    assert estimate_text("abcd") == 2
    assert estimate_text("é" * 4) == 3  # 8 UTF-8 bytes


def test_estimate_messages_counts_content_thinking_and_calls() -> None:
    call_fn = {"name": "read", "arguments": {"path": "a.py"}}
    messages: list[Message] = [
        {"role": "user", "content": "x" * 40},
        {
            "role": "assistant",
            "content": "",
            "thinking": "t" * 20,
            "tool_calls": [
                {"id": "1", "function": {"name": "read", "arguments": {"path": "a.py"}}}
            ],
        },
    ]
    expected = (11 + 8) + (1 + 8 + 6 + estimate_text(json.dumps(call_fn)))
    assert estimate_messages(messages) == expected
    assert estimate_messages([]) == 0


def test_estimate_tools() -> None:
    assert estimate_tools([]) == 0
    assert estimate_tools(TOOLS) == estimate_text(json.dumps(TOOLS))


def test_meter_calibration_math() -> None:
    meter = TokenMeter()
    assert meter.calibration == 1.0
    meter.update(2000, 1000)  # ratio 2.0
    assert meter.calibration == pytest.approx(0.7 * 1.0 + 0.3 * 2.0)
    meter.update(0, 1000)  # no count reported: ignored
    meter.update(-5, 1000)
    assert meter.calibration == pytest.approx(1.3)
    for _ in range(50):
        meter.update(100_000, 10)
    assert meter.calibration == 3.0
    for _ in range(50):
        meter.update(1, 1000)
    assert meter.calibration == 0.5


@given(
    counts=st.lists(
        st.tuples(
            st.integers(min_value=-10, max_value=10**6), st.integers(min_value=1, max_value=10**6)
        ),
        max_size=30,
    )
)
def test_meter_calibration_stays_clamped(counts: list[tuple[int, int]]) -> None:
    meter = TokenMeter()
    for count, unscaled in counts:
        meter.update(count, unscaled)
        assert 0.5 <= meter.calibration <= 3.0


def test_meter_estimate_is_scaled_unscaled() -> None:
    meter = TokenMeter()
    messages = _conversation(2)
    raw = estimate_messages(messages) + estimate_tools(TOOLS)
    assert meter.unscaled(messages, TOOLS) == raw
    assert meter.estimate(messages, TOOLS) == raw
    meter.calibration = 2.0
    assert meter.estimate(messages, TOOLS) == 2 * raw
    assert meter.unscaled(messages, TOOLS) == raw


def test_budget() -> None:
    assert budget(32768) == 32768 - 4096 - 1024
    assert budget(131072) == 131072 - 5120
    assert budget(8192) == 4096  # 8192 - 5120 = 3072 would leave too little
    assert budget(4096) == 2048


def test_truncation_detection() -> None:
    assert truncation_suspected(8192, 8192)
    assert truncation_suspected(8192 - 163, 8192)  # 8192 // 50 == 163
    assert not truncation_suspected(8192 - 164, 8192)
    assert not truncation_suspected(0, 8192)
    assert truncation_warning(8192) == (
        "context overflow: prompt filled num_ctx=8192 and was likely front-truncated;"
        " raise num_ctx or /compact"
    )


def test_strip_old_thinking_keeps_current_turn() -> None:
    messages = _conversation(3, thinking="deep thoughts")
    messages.append({"role": "user", "content": "[system] nudge"})  # not a new turn
    out = strip_old_thinking(messages)
    cut = 9  # "prompt 2"
    assert all("thinking" not in m for m in out[:cut])
    assert out[cut + 1]["thinking"] == "deep thoughts"
    assert messages[2]["thinking"] == "deep thoughts"  # stored history untouched
    assert strip_old_thinking([]) == []


# ------------------------------------------------------------------- prune


def test_prune_shortens_old_long_outputs_only() -> None:
    long = "L" * 5000
    messages = _conversation(4, output=long, thinking="hmm")
    messages[3]["content"] = "short"  # turn 0's tool output: under 800 chars stays
    snapshot = json.dumps(messages)
    out, pruned = prune_old_outputs(messages)
    assert json.dumps(messages) == snapshot  # input not mutated
    assert pruned == 1  # only turn 1 is old and long; turns 2 and 3 are the last two
    assert out[3]["content"] == "short"
    assert out[7]["content"] == "L" * 200 + (
        "\n[… 4800 bytes elided by compaction; re-run the tool if you need it]"
    )
    assert "thinking" not in out[2] and "thinking" not in out[6]
    assert out[9:] == messages[9:]  # last two turns untouched
    assert out[10]["thinking"] == "hmm"
    assert out[0] == messages[0]


def test_prune_boundary_counts_real_prompts() -> None:
    messages = _conversation(3, output="L" * 1000)
    # Nudges and the interrupted-turn prompt: only real prompts mark turns.
    messages.insert(9, {"role": "user", "content": "[system] You have not changed any files"})
    messages[5]["content"] = INTERRUPT_NOTE + "prompt 1"
    out, pruned = prune_old_outputs(messages)
    assert pruned == 1 and out[3]["content"].startswith("L" * 200 + "\n[…")
    assert out[5:] == messages[5:]


def test_prune_with_few_turns_does_nothing() -> None:
    messages = _conversation(2, output="L" * 5000)
    out, pruned = prune_old_outputs(messages)
    assert (out, pruned) == (messages, 0)


def test_prune_exactly_800_is_kept() -> None:
    messages = _conversation(3, output="x" * 800)
    assert prune_old_outputs(messages)[1] == 0


# --------------------------------------------------------- enforce (no model)


class _Unused:
    """A provider for paths that must not call the model."""

    base_url = "http://unused"

    def stream_chat(self, request: Any) -> Any:
        raise AssertionError("the model must not be called")

    async def list_models(self) -> list[str]:
        return []

    async def show(self, model: str) -> Any:
        raise AssertionError

    async def aclose(self) -> None:
        return None


def _enforce(
    messages: list[Message], num_ctx: int, provider: Any, meter: TokenMeter | None = None
) -> tuple[list[Message], CompactionCounts, list[tuple[str, str]]]:
    notes: list[tuple[str, str]] = []
    result = asyncio.run(
        enforce_budget(
            messages,
            meter=meter or TokenMeter(),
            tools=TOOLS,
            num_ctx=num_ctx,
            provider=provider,
            model="m",
            emit=lambda kind, text: notes.append((kind, text)),
        )
    )
    return result[0], result[1], notes


def test_enforce_under_budget_is_a_no_op() -> None:
    messages = _conversation(3)
    out, counts, notes = _enforce(messages, 32768, _Unused())
    assert out is messages and counts == CompactionCounts() and notes == []


def test_enforce_prune_is_enough() -> None:
    messages = _conversation(4, output="L" * 12_000)  # ~12k tokens, two old outputs
    meter = TokenMeter()
    before = meter.estimate(messages, TOOLS)
    out, counts, notes = _enforce(messages, 16384, _Unused(), meter)
    after = meter.estimate(out, TOOLS)
    assert before > budget(16384) >= after
    assert (counts.prunes, counts.summaries) == (1, 0)
    assert notes == [
        (
            "info",
            f"compacted: pruned 2 old outputs (~{before} → ~{after} tok, budget {budget(16384)})",
        )
    ]


def test_enforce_nothing_to_summarize_keeps_current_turn() -> None:
    messages = _conversation(1, output="L" * 100_000)
    out, counts, notes = _enforce(messages, 8192, _Unused())
    assert out == messages and counts == CompactionCounts() and notes == []


# ---------------------------------------------------------- against the fake server


def _with_server(
    script: dict[str, Any], tmp_path: Any, run: Any
) -> tuple[Any, list[dict[str, Any]]]:
    """Run `run(provider)` against a fake Ollama server; returns (result, chat request bodies)."""
    from fakes.fake_server import FakeModelServer

    from rift.models.ollama import OllamaProvider

    async def go(url: str) -> Any:
        provider = OllamaProvider(url, read_timeout=10)
        try:
            return await run(provider)
        finally:
            await provider.aclose()

    with FakeModelServer(script, log_path=tmp_path / "requests.jsonl") as server:
        result = asyncio.run(go(server.url))
        return result, server.chat_requests()


SUMMARY = (
    "## Goal\nfix it\n## Constraints\nnone\n## Progress\nread f0\n"
    "## Key Decisions\n-\n## Next Steps / Critical Context\nedit"
)


def test_summarize_request_and_result(tmp_path: Any) -> None:
    messages = _conversation(3, output="T" * 3000)
    messages.append({"role": "user", "content": "[system] nudge"})  # still the current turn

    async def run(provider: Any) -> list[Message]:
        return await summarize(provider, model="fake-model", num_ctx=16384, messages=messages)

    script = {"turns": [{"content": ["<think>plan</think>\n", SUMMARY[:20], SUMMARY[20:]]}]}
    result, requests = _with_server(script, tmp_path, run)
    assert result == [
        messages[0],
        {"role": "user", "content": COMPACTED_PREFIX + SUMMARY},
        *messages[9:],
    ]
    (body,) = requests
    assert body["model"] == "fake-model"
    assert body["think"] is False
    assert "tools" not in body
    assert body["options"] == {"num_ctx": 16384, "temperature": 0.0, "num_predict": 1500}
    prompt = "\n".join(m["content"] for m in body["messages"])
    for heading in (
        "Goal",
        "Constraints",
        "Progress",
        "Key Decisions",
        "Next Steps / Critical Context",
    ):
        assert f"\n## {heading}\n" in prompt
    assert "exactly these five sections" in prompt
    assert "Files changed, commands run, and their results" in prompt
    assert "USER: prompt 0" in prompt and "USER: prompt 1" in prompt
    assert 'ASSISTANT CALLED: read({"path": "f1"})' in prompt
    assert "ASSISTANT: reply 1" in prompt
    assert "TOOL RESULT: " + "T" * 1500 + "\n" in prompt  # each content capped at 1500
    assert "T" * 1501 not in prompt
    assert (
        "prompt 2" not in prompt and "nudge" not in prompt
    )  # the current turn is kept, not summarized


def test_enforce_budget_summarizes_when_pruning_is_not_enough(tmp_path: Any) -> None:
    # Many old turns with short outputs: pruning finds little, the summary is needed.
    messages = _conversation(60, output="o" * 700)
    messages += _turn(60, output="L" * 2000)

    async def run(provider: Any) -> Any:
        notes: list[tuple[str, str]] = []
        out, counts = await enforce_budget(
            messages,
            meter=TokenMeter(),
            tools=TOOLS,
            num_ctx=8192,
            provider=provider,
            model="fake-model",
            emit=lambda kind, text: notes.append((kind, text)),
        )
        return out, counts, notes

    (out, counts, notes), requests = _with_server({"turns": [{"content": SUMMARY}]}, tmp_path, run)
    assert len(requests) == 1
    assert out == [
        messages[0],
        {"role": "user", "content": COMPACTED_PREFIX + SUMMARY},
        *messages[-4:],
    ]
    assert (counts.prunes, counts.summaries) == (0, 1)
    tokens = TokenMeter().estimate(out, TOOLS)
    assert notes == [
        ("info", "compacting: summarizing earlier conversation…"),
        ("info", f"compacted: history summarized (~{tokens} tok)"),
    ]
    # The summarizer's own prompt fit the window even though the history did not.
    assert len(json.dumps(requests[0]["messages"])) // 4 < 8192


def test_enforce_budget_summary_failure_keeps_pruned(tmp_path: Any) -> None:
    messages = _conversation(40, output="L" * 1200)

    async def run(provider: Any) -> Any:
        notes: list[tuple[str, str]] = []
        out, counts = await enforce_budget(
            messages,
            meter=TokenMeter(),
            tools=TOOLS,
            num_ctx=8192,
            provider=provider,
            model="fake-model",
            emit=lambda kind, text: notes.append((kind, text)),
        )
        return out, counts, notes

    script = {"turns": [{"status": 500, "error": "out of memory"}]}
    (out, counts, notes), _ = _with_server(script, tmp_path, run)
    expected, pruned = prune_old_outputs(messages)
    assert out == expected and pruned == 38
    assert (counts.prunes, counts.summaries) == (1, 0)
    assert [kind for kind, _ in notes] == ["info", "info", "warning"]
    assert notes[0][1].startswith("compacted: pruned 38 old outputs (~")
    assert notes[2][1].startswith("summarization failed (") and "out of memory" in notes[2][1]
    assert notes[2][1].endswith("); continuing pruned")
    assert out[-4:] == messages[-4:]


def test_empty_summary_is_a_failure(tmp_path: Any) -> None:
    messages = _conversation(3)

    async def run(provider: Any) -> Any:
        try:
            await summarize(provider, model="fake-model", num_ctx=8192, messages=messages)
        except Exception as exc:
            return exc
        return None

    exc, _ = _with_server({"turns": [{"content": "   "}]}, tmp_path, run)
    assert exc is not None and "empty summary" in str(exc)


def test_summarize_without_history_does_not_call_the_model() -> None:
    messages = _conversation(1)
    assert asyncio.run(summarize(_Unused(), model="m", num_ctx=8192, messages=messages)) == messages

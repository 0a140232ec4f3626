"""Models and providers end to end (issue 19): the real CLI against the fake server,
judged by the request bodies it sent and what a user sees."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(60)

THINKER = {"name": "fake-model", "capabilities": ["tools", "thinking"], "context_length": 32768}
PLAIN = {"name": "fake-model", "capabilities": ["tools"], "context_length": 32768}


def schema_keywords(value: Any) -> list[str]:
    """Every JSON-schema keyword at any depth; property *names* are not keywords."""
    if isinstance(value, list):
        return [k for item in value for k in schema_keywords(item)]
    if not isinstance(value, dict):
        return []
    found: list[str] = []
    for key, sub in value.items():
        found.append(key)
        if key == "properties" and isinstance(sub, dict):
            found += [k for prop in sub.values() for k in schema_keywords(prop)]
        else:
            found += schema_keywords(sub)
    return found


# ------------------------------------------------------------------ 1. effort


def test_effort_flag_reaches_ollama_as_graded_think(harness: Any) -> None:
    server = harness.server([{"content": "ok"}], models=[THINKER])
    run = harness.run("hi", server, "--effort", "high")
    assert run.code == 0, run.describe()
    assert server.chat_requests()[0]["think"] == "high"


def test_effort_config_key_reaches_openai_servers(harness: Any) -> None:
    harness.write_config({"effort": "low"})
    server = harness.server([{"content": "ok"}], models=[THINKER])
    run = harness.run("hi", server, openai=True)
    assert run.code == 0, run.describe()
    body = server.chat_requests()[0]
    assert body["reasoning_effort"] == "low"
    assert body["chat_template_kwargs"] == {"enable_thinking": True}


def test_effort_is_not_sent_to_a_model_that_cannot_think(harness: Any) -> None:
    server = harness.server([{"content": "ok"}], models=[PLAIN])
    run = harness.run("hi", server, "--effort", "max")
    assert run.code == 0, run.describe()
    assert server.chat_requests()[0]["think"] is False


def test_ollama_refusing_a_level_gets_think_true(harness: Any) -> None:
    refusal = {"status": 400, "error": 'think value "medium" is not supported for this model'}
    server = harness.server([refusal, {"content": "ok"}], models=[THINKER])
    run = harness.run("hi", server, "--effort", "medium")
    assert run.code == 0, run.describe()
    assert [b["think"] for b in server.chat_requests()] == ["medium", True]


def test_openai_server_refusing_template_kwargs_is_retried_without_them(harness: Any) -> None:
    refusal = {"status": 400, "error": "Unrecognized request argument: chat_template_kwargs"}
    server = harness.server([refusal, {"content": "ok"}], models=[THINKER])
    run = harness.run("hi", server, "--effort", "high", openai=True)
    assert run.code == 0, run.describe()
    first, second = server.chat_requests()
    assert "chat_template_kwargs" in first and "chat_template_kwargs" not in second
    assert second["reasoning_effort"] == "high"


# ------------------------------------------------------- 2. old thinking stripped


def test_old_turns_thinking_is_not_resent_but_the_current_turns_is(harness: Any) -> None:
    server = harness.server(
        [
            {"match": "first task", "thinking": "OLD-REASONING", "content": "done one"},
            {
                "match": "second task",
                "thinking": "NEW-REASONING",
                "tool_calls": [{"name": "ls", "arguments": {"path": "."}}],
            },
            {"content": "done two"},
        ],
        models=[THINKER],
    )
    assert harness.run("first task", server).code == 0
    run = harness.run("second task", server, "-c")
    assert run.code == 0, run.describe()
    bodies = server.chat_requests()
    assert len(bodies) == 3
    second_turn = [json.dumps(b["messages"]) for b in bodies[1:]]
    assert all("OLD-REASONING" not in text for text in second_turn)
    assert "NEW-REASONING" in second_turn[1]  # the tool loop of the current turn keeps it
    stored = json.dumps(run.session()["messages"])
    assert "OLD-REASONING" in stored  # stripped from the request only


# ------------------------------------------------------------------- 3. API keys


def test_openai_provider_reads_openai_api_key_but_a_project_one_does_not(
    harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    server = harness.server([{"content": "a"}, {"content": "b"}])
    harness.write_config({"providers": {"openai": {"base_url": server.v1_url}}})
    run = harness.run("hi", server, "-m", "openai/fake-model")
    assert run.code == 0, run.describe()
    assert server.chat_requests()[0]["_auth"] == "Bearer sk-from-env"
    harness.write_config({})
    harness.write_project_config({"providers": {"openai": {"base_url": server.v1_url}}})
    run = harness.run("hi", server, "-m", "openai/fake-model", "--trust-project")
    assert run.code == 0, run.describe()
    assert "_auth" not in server.chat_requests()[1]


def test_provider_api_key_env_is_sent(harness: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPU_BOX_KEY", "k-123")
    server = harness.server([{"content": "a"}])
    harness.write_config(
        {"providers": {"gpu": {"base_url": server.v1_url, "api_key_env": "GPU_BOX_KEY"}}}
    )
    run = harness.run("hi", server, "-m", "gpu/fake-model")
    assert run.code == 0, run.describe()
    assert server.chat_requests()[0]["_auth"] == "Bearer k-123"


# --------------------------------------------------------- 4. malformed rules


def test_malformed_permission_rule_is_one_warning_naming_rule_and_file(harness: Any) -> None:
    path = harness.write_config({"permissions": {"deny": ["Bash(rm -rf *", "Bash(ls)"]}})
    server = harness.server([{"content": "ok"}])
    run = harness.run("hi", server)
    assert run.code == 0, run.describe()
    lines = [line for line in run.stderr.splitlines() if "Bash(rm -rf *" in line]
    assert len(lines) == 1, run.stderr
    assert str(path) in lines[0] and "malformed permission rule" in lines[0]


# ------------------------------------------------------------ 5. lean schema


def test_lean_schema_has_no_descriptions_inside_parameters(
    harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RIFT_TOOL_SCHEMA", "lean")
    server = harness.server([{"content": "ok"}])
    run = harness.run("hi", server)
    assert run.code == 0, run.describe()
    tools = server.chat_requests()[0]["tools"]
    assert tools
    keys = schema_keywords([t["function"]["parameters"] for t in tools])
    assert "properties" in keys and "description" not in keys


# ------------------------------------------------------------ 6. unknown kind


def test_unknown_provider_kind_fails_listing_the_valid_kinds(harness: Any) -> None:
    server = harness.server([{"content": "ok"}])
    harness.write_config({"providers": {"box": {"base_url": server.url, "kind": "antrhopic"}}})
    run = harness.run("hi", server, "-m", "box/fake-model")
    assert run.code == 2, run.describe()
    assert "unknown kind 'antrhopic'" in run.stderr
    assert "anthropic, ollama, openai" in run.stderr
    assert server.chat_requests() == []


# ------------------------------------------------------- 7. protocol detection


def test_host_without_v1_that_speaks_openai_is_detected(harness: Any) -> None:
    server = harness.server([{"content": "ok"}], wire="openai")
    run = harness.run("hi", server)
    assert run.code == 0, run.describe()
    assert run.result["reply"] == "ok"
    assert [r["_path"] for r in server.chat_requests()] == ["/v1/chat/completions"]
    assert run.stderr.count("OpenAI-compatible server") == 1, run.stderr


def test_an_ollama_host_stays_ollama_without_a_note(harness: Any) -> None:
    server = harness.server([{"content": "ok"}], wire="ollama")
    run = harness.run("hi", server)
    assert run.code == 0, run.describe()
    assert [r["_path"] for r in server.chat_requests()] == ["/api/chat"]
    assert "OpenAI-compatible" not in run.stderr


# ---------------------------------------------------------------- 8. Anthropic


CLAUDE = {"name": "claude-sonnet-4-5", "context_length": None}


def anthropic_config(harness: Any, server: Any) -> None:
    harness.write_config({"providers": {"claude": {"base_url": server.url, "kind": "anthropic"}}})


def test_anthropic_tool_loop_with_signed_thinking_and_cache_breakpoints(
    harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    server = harness.server(
        [
            {
                "thinking": ["I should ", "write it"],
                "content": "Writing.",
                "tool_calls": [
                    {
                        "id": "toolu_1",
                        "name": "write",
                        "arguments": {"path": "a.txt", "content": "hi\n"},
                    }
                ],
            },
            {"content": "Done."},
        ],
        models=[CLAUDE],
        wire="anthropic",
    )
    anthropic_config(harness, server)
    run = harness.run("create a.txt", server, "-m", "claude/claude-sonnet-4-5", "--effort", "high")
    assert run.code == 0, run.describe()
    assert (harness.project / "a.txt").read_text() == "hi\n"
    assert run.result["reply"] == "Writing.Done."
    first, second = server.chat_requests()
    assert first["_path"] == "/v1/messages"
    assert first["_api_key"] == "sk-ant-test" and first["_anthropic_version"] == "2023-06-01"
    assert first["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert first["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 16384}
    assert "temperature" not in first
    assert {t["name"] for t in first["tools"]} >= {"write", "read"}
    assert all("input_schema" in t for t in first["tools"])
    assistant = second["messages"][1]
    assert assistant["role"] == "assistant"
    kinds = [block["type"] for block in assistant["content"]]
    assert kinds == ["thinking", "text", "tool_use"]
    assert assistant["content"][0] == {
        "type": "thinking",
        "thinking": "I should write it",
        "signature": "fake-signature",
    }
    result = second["messages"][2]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "toolu_1"
    assert second["messages"][2]["content"][-1]["cache_control"] == {"type": "ephemeral"}


def test_anthropic_without_thinking_sends_temperature(
    harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    server = harness.server([{"content": "hello"}], models=[CLAUDE], wire="anthropic")
    anthropic_config(harness, server)
    run = harness.run("hi", server, "-m", "claude/claude-sonnet-4-5", "--temp", "0.3")
    assert run.code == 0, run.describe()
    body = server.chat_requests()[0]
    assert body["temperature"] == 0.3 and "thinking" not in body
    assert run.result["stats"]["prompt_tokens"] > 0


def test_builtin_anthropic_without_a_key_is_one_clear_line(
    harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    server = harness.server([])
    run = harness.run("hi", server, "-m", "anthropic/claude-sonnet-4-5")
    assert run.code == 2, run.describe()
    assert "ANTHROPIC_API_KEY" in run.stderr and "Traceback" not in run.stderr


# ------------------------------------------------------------ 9. attachments

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
VISION = {"name": "fake-model", "capabilities": ["tools", "vision"], "context_length": 32768}


@pytest.mark.parametrize("openai", [False, True])
def test_attached_image_and_text_reach_a_vision_model(harness: Any, openai: bool) -> None:
    (harness.project / "shot.png").write_bytes(PNG)
    (harness.project / "notes.md").write_text("the notes say 42\n")
    server = harness.server([{"content": "seen"}], models=[VISION])
    run = harness.run("look", server, "--attach", "shot.png", "--attach", "notes.md", openai=openai)
    assert run.code == 0, run.describe()
    user = server.chat_requests()[0]["messages"][-1]
    encoded = base64.b64encode(PNG).decode()
    if openai:
        text, image = user["content"]
        assert text["type"] == "text" and "the notes say 42" in text["text"]
        assert image["image_url"]["url"] == f"data:image/png;base64,{encoded}"
    else:
        assert user["images"] == [encoded]
        assert user["content"].startswith("look") and "the notes say 42" in user["content"]


def test_attached_image_is_not_sent_to_a_model_without_vision(harness: Any) -> None:
    (harness.project / "shot.png").write_bytes(PNG)
    server = harness.server([{"content": "ok"}], models=[PLAIN])
    run = harness.run("look", server, "--attach", "shot.png")
    assert run.code == 0, run.describe()
    assert "images" not in server.chat_requests()[0]["messages"][-1]
    assert "does not report vision: 1 image not sent" in run.stderr


UNDECLARED = {"name": "fake-model", "context_length": 32768}
"""A plain `/v1/models` entry (vLLM, LM Studio): no capabilities, no modalities."""


def test_vision_setting_sends_images_to_a_plain_v1_models_entry(harness: Any) -> None:
    """Issue 44: an entry that declares nothing never got an image, and no setting could say
    the model sees. `model_settings.<name>.vision: true` in the user config does."""
    (harness.project / "shot.png").write_bytes(PNG)
    harness.write_config({"model_settings": {"fake-model": {"vision": True}}})
    server = harness.server([{"content": "seen"}], models=[UNDECLARED], wire="openai")
    run = harness.run("look", server, "--attach", "shot.png", openai=True)
    assert run.code == 0, run.describe()
    text, image = server.chat_requests()[0]["messages"][-1]["content"]
    assert text["text"].startswith("look")
    encoded = base64.b64encode(PNG).decode()
    assert image["image_url"]["url"] == f"data:image/png;base64,{encoded}"
    assert "not sent" not in run.stderr


def test_the_servers_word_on_vision_outranks_the_setting(harness: Any) -> None:
    """llama.cpp's /props says the model has no projector: no image, whatever the setting."""
    (harness.project / "shot.png").write_bytes(PNG)
    harness.write_config({"model_settings": {"fake-model": {"vision": True}}})
    props = {"default_generation_settings": {"n_ctx": 32768}, "modalities": {"vision": False}}
    server = harness.server([{"content": "ok"}], models=[UNDECLARED], wire="openai", props=props)
    run = harness.run("look", server, "--attach", "shot.png", openai=True)
    assert run.code == 0, run.describe()
    assert isinstance(server.chat_requests()[0]["messages"][-1]["content"], str)
    assert "does not report vision: 1 image not sent" in run.stderr


def test_anthropic_gets_image_blocks(harness: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    (harness.project / "shot.png").write_bytes(PNG)
    server = harness.server([{"content": "ok"}], models=[CLAUDE], wire="anthropic")
    anthropic_config(harness, server)
    run = harness.run("look", server, "-m", "claude/claude-sonnet-4-5", "--attach", "shot.png")
    assert run.code == 0, run.describe()
    image, text = server.chat_requests()[0]["messages"][-1]["content"]
    assert image["source"] == {
        "type": "base64",
        "media_type": "image/png",
        "data": base64.b64encode(PNG).decode(),
    }
    assert text["text"] == "look"


def test_oversized_missing_or_binary_attachments_are_one_line(harness: Any) -> None:
    (harness.project / "big.png").write_bytes(b"\x00" * (10 * 1024 * 1024 + 1))
    (harness.project / "blob.bin").write_bytes(b"\x00\x01\x02")
    server = harness.server([{"content": "ok"}])
    for name, expected in (
        ("big.png", "capped at 10 MB"),
        ("nope.txt", "cannot attach nope.txt"),
        ("blob.bin", "neither text nor an image"),
    ):
        run = harness.run("look", server, "--attach", name)
        assert run.code == 2, run.describe()
        assert expected in run.stderr and "Traceback" not in run.stderr
        assert len(run.stderr.strip().splitlines()) == 1
    assert server.chat_requests() == []


# ------------------------------------------------------ 10. greedy retry


def test_headless_turn_without_a_tool_call_is_retried_greedily_once(harness: Any) -> None:
    server = harness.server(
        [
            {"content": "Here is the fix:\n```python\nx = 2\n```"},
            {"content": "You could change x to 2."},
            {
                "tool_calls": [
                    {"name": "write", "arguments": {"path": "a.py", "content": "x = 2\n"}}
                ]
            },
            {"content": "Fixed."},
        ]
    )
    (harness.project / "a.py").write_text("x = 1\n")
    trace = harness.project.parent / "trace.jsonl"
    run = harness.run("fix the bug in a.py", server, "--trace", str(trace))
    assert run.code == 0, run.describe()
    assert (harness.project / "a.py").read_text() == "x = 2\n"
    bodies = server.chat_requests()
    assert [b["options"]["temperature"] for b in bodies] == [0.2, 0.2, 0.0, 0.0]
    retried = bodies[2]["messages"]
    assert retried[-1] == {"role": "user", "content": "fix the bug in a.py"}
    assert not any(m["role"] == "assistant" for m in retried)
    record = json.loads(trace.read_text().splitlines()[-1])
    assert record["failures"]["greedy_retries"] == 1
    assert record["failures"]["apply_nudges"] == 1


def test_greedy_retry_happens_once(harness: Any) -> None:
    server = harness.server(
        [{"content": "```python\nx = 2\n```"}, {"content": "no"}, {"content": "still no"}]
    )
    run = harness.run("fix the bug in a.py", server)
    assert run.code == 0, run.describe()
    assert len(server.chat_requests()) == 3
    assert run.result["reply"].endswith("still no")


# ------------------------------------------------------------------ 11. cost


def test_json_output_estimates_cost_from_the_builtin_anthropic_rates(
    harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    server = harness.server(
        [
            {"tool_calls": [{"name": "ls", "arguments": {}}], "usage": {"prompt_tokens": 1000}},
            {"content": "ok", "usage": {"prompt_tokens": 3000, "output_tokens": 500}},
        ],
        models=[CLAUDE],
        wire="anthropic",
    )
    anthropic_config(harness, server)
    run = harness.run("hi", server, "-m", "claude/claude-sonnet-4-5")
    assert run.code == 0, run.describe()
    stats = run.result["stats"]
    assert stats["billed_prompt_tokens"] == 4000  # both calls of the tool loop are billed
    expected = (4000 * 3.0 + stats["output_tokens"] * 15.0) / 1e6  # claude-sonnet-4 rates
    assert run.result["estimated_cost_usd"] == pytest.approx(expected)


def test_user_pricing_prices_a_provider_model_and_local_models_cost_nothing(
    harness: Any,
) -> None:
    server = harness.server(
        [{"content": "a", "usage": {"prompt_tokens": 2_000_000, "output_tokens": 1_000_000}}] * 2
    )
    harness.write_config(
        {
            "providers": {"box": {"base_url": server.v1_url}},
            "pricing": {"fake": {"input": 0.5, "output": 1.5}},
        }
    )
    priced = harness.run("hi", server, "-m", "box/fake-model")
    assert priced.code == 0, priced.describe()
    assert priced.result["estimated_cost_usd"] == pytest.approx(2 * 0.5 + 1 * 1.5)
    local = harness.run("hi", server)  # the default host: a local model
    assert local.code == 0, local.describe()
    assert local.result["estimated_cost_usd"] == 0


def test_attached_text_is_not_read_as_the_request(harness: Any) -> None:
    """A file that says "fix" is material, not an order: no apply nudge, no greedy retry."""
    (harness.project / "notes.md").write_text("TODO: fix the parser and add tests\n")
    server = harness.server([{"content": "The parser needs work."}, {"content": "unused"}])
    run = harness.run("summarize these notes", server, "--attach", "notes.md")
    assert run.code == 0, run.describe()
    assert len(server.chat_requests()) == 1
    assert "fix the parser" in server.chat_requests()[0]["messages"][-1]["content"]

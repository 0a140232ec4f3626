"""The whole-file edit format's pieces (core/loop/parts/wholefile.py, models/embedded_calls.py).

End to end it runs with the real embedded model (tests/embedded/test_embedded_rename.py
and the tiny tier of bench/tasks).
"""

from __future__ import annotations

from pathlib import Path

from rift.core.loop.parts import wholefile
from rift.models.base import ContentDelta, Message, ToolCall
from rift.models.embedded import _ReplyAssembler
from rift.models.embedded_calls import step_tools
from rift.models.embedded_whole import fence_closed, whole_file_call, whole_file_path

TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("read", "edit", "write", "bash")
]


def test_the_target_is_chosen_by_the_file_never_by_the_tasks_words(tmp_path: Path) -> None:
    """Which file is asked for whole depends on its size and the project's layout: the
    task's wording (English or not) plays no part (the format is the profile's)."""
    (tmp_path / "stats.py").write_text("def max_of(items):\n    return min(items)\n")
    (tmp_path / "big.py").write_text("x = 1\n" * 400)
    assert wholefile.fits(tmp_path, "stats.py", 150)
    assert not wholefile.fits(tmp_path, "big.py", 150)  # edit suits it better
    assert not wholefile.fits(tmp_path, "missing.py", 150)
    (tmp_path / "link.py").symlink_to(tmp_path / "stats.py")
    assert not wholefile.fits(tmp_path, "link.py", 150)


def test_a_lone_source_file_beside_its_tests_is_the_target(tmp_path: Path) -> None:
    (tmp_path / "two_fer.py").write_text("def two_fer(name):\n    pass\n")
    assert wholefile.lone_source(tmp_path) == ""  # no tests beside it: not an exercise
    (tmp_path / "two_fer_test.py").write_text("import two_fer\n")
    assert wholefile.lone_source(tmp_path) == "two_fer.py"
    (tmp_path / "other.py").write_text("x = 1\n")
    assert wholefile.lone_source(tmp_path) == ""  # two sources: which one is unknown


def test_the_request_binds_only_the_next_step() -> None:
    ask: Message = {"role": "user", "content": wholefile.request("stats.py")}
    assert whole_file_path([ask]) == "stats.py"
    answered: list[Message] = [ask, {"role": "tool", "content": "ERROR: write refused: x"}]
    assert whole_file_path(answered) == ""
    [only] = step_tools(TOOLS, [ask])
    assert only["function"]["name"] == "write"
    assert only["function"]["parameters"]["properties"]["path"]["enum"] == ["stats.py"]


def test_a_fenced_reply_becomes_a_write_of_the_file() -> None:
    reply = "Here it is:\n```python\ndef f():\n    return '```'\n```\nDone."
    assert whole_file_call(reply, "a.py") == (
        "",
        [
            ToolCall(
                id=None,
                name="write",
                arguments={"path": "a.py", "content": "def f():\n    return '```'\n"},
            )
        ],
    )


def test_line_numbers_copied_from_the_read_come_off_and_an_unclosed_fence_is_no_file() -> None:
    numbered = "```python\n    1\tdef f():\n    2\t    return 1\n```"
    [call] = whole_file_call(numbered, "a.py")[1]
    assert call.arguments == {"path": "a.py", "content": "def f():\n    return 1\n"}
    assert whole_file_call("```python\ndef f():\n    return 1\n", "a.py")[1] == []
    assert whole_file_call("I cannot do that.", "a.py") == ("I cannot do that.", [])


def test_the_provider_streams_nothing_of_the_file_and_ends_with_the_write() -> None:
    assembler = _ReplyAssembler(constrained=False, offered=True, whole="a.py")
    pieces = ["```python\n", "x = 2\n", "```"]
    events = [e for p in pieces for e in assembler.feed(p)] + list(assembler.finish())
    assert events == [
        ToolCall(id=None, name="write", arguments={"path": "a.py", "content": "x = 2\n"})
    ]
    plain = _ReplyAssembler(constrained=False, offered=True, whole="a.py")
    said = [e for e in plain.feed("No change is needed.")] + list(plain.finish())
    assert said == [ContentDelta("No change is needed.")]


def test_generation_may_stop_once_the_fence_closes() -> None:
    assert not fence_closed("```python\nx = 1\n")
    assert not fence_closed("```python\nx = 1\n``")
    assert fence_closed("```python\nx = 1\n```")
    assert fence_closed("Sure:\n```\nx = 1\n```\nThis changes")


def test_a_text_call_in_reply_to_a_whole_file_request_is_neither_run_nor_written() -> None:
    """Seen on the tiny tier: asked for settings.json whole, the model wrote a `read` of it
    as text; it ran, and the turn went on reading and failing edits for minutes."""
    assembler = _ReplyAssembler(constrained=False, offered=True, whole="settings.json")
    text = '{"name": "read", "arguments": {"path": "settings.json"}}'
    events = list(assembler.feed(text)) + list(assembler.finish())
    assert [e for e in events if isinstance(e, ToolCall)] == []


def test_the_whole_file_keeps_its_final_newline(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"debug": true}\n')
    call = ToolCall(id="1", name="write", arguments={"path": "a.json", "content": '{"a": 1}'})
    assert wholefile.settle(call, "a.json", tmp_path).arguments == {
        "path": "a.json",
        "content": '{"a": 1}\n',
    }
    (tmp_path / "b.json").write_text('{"debug": true}')  # none before: none added
    bare = ToolCall(id="1", name="write", arguments={"path": "b.json", "content": "{}"})
    assert wholefile.settle(bare, "b.json", tmp_path) == bare


def test_a_model_named_small_gets_the_small_model_format() -> None:
    from rift.models.sizes import named_small

    assert named_small("qwen2.5-coder:1.5b") and named_small("Llama-3.2-3B-Instruct")
    assert named_small("/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    assert not named_small("qwen2.5-coder:32b") and not named_small("gpt-oss")
    assert not named_small("fake-model")

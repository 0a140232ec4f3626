"""No damage from a small model (issue 22): every failure mode seen on the task bench, scripted.

Each test scripts the misbehaviour on the fake server, runs the real `rift -p`
and judges from the outside: the file on disk, the tool result the model read
(from the session file), the warnings on stderr and what was re-sent to the
server.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
READ_OUTPUT = "".join(f"{n:>5}\t{line}\n" for n, line in enumerate(CALC.splitlines(), 1))


def write(path: str, content: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "write", "arguments": {"path": path, "content": content}}]}


def edit(path: str, old: str, new: str) -> dict[str, Any]:
    args = {"path": path, "old_string": old, "new_string": new}
    return {"tool_calls": [{"name": "edit", "arguments": args}]}


def results(run: Any) -> list[str]:
    return [m["content"] for m in run.session()["messages"] if m["role"] == "tool"]


@pytest.fixture
def calc(harness: Any) -> Path:
    path = harness.project / "calc.py"
    path.write_text(CALC)
    return path


@pytest.mark.parametrize(
    "content",
    [
        f"<tool_response>\n{READ_OUTPUT}</tool_response>",
        "def add(a, b):\n    return a + b\n<|im_end|>\n<|im_start|>assistant\n",
        READ_OUTPUT,
    ],
    ids=["tool-response-tags", "im-tokens", "line-numbers"],
)
def test_read_output_written_back_is_refused(harness: Any, calc: Path, content: str) -> None:
    server = harness.server([write("calc.py", content), {"content": "done"}])
    run = harness.run("add docstrings to calc.py", server)
    assert run.code == 0, run.describe()
    assert calc.read_text() == CALC
    [text] = results(run)
    assert text.startswith("ERROR: write refused:")
    assert "not part of the file" in text


def test_an_edit_adding_template_tokens_is_refused(harness: Any, calc: Path) -> None:
    step = edit("calc.py", "    return a + b\n", "    return a + b\n</tool_call>\n")
    run = harness.run("fix it", harness.server([step, {"content": "done"}]))
    assert calc.read_text() == CALC
    assert "chat-template markup (</tool_call>)" in results(run)[0]


def test_a_file_that_already_holds_template_tokens_stays_editable(harness: Any) -> None:
    source = 'TAG = "<tool_call>"\nN = 1\n'
    (harness.project / "tags.py").write_text(source)
    step = write("tags.py", source.replace("N = 1", "N = 2"))
    run = harness.run("set N to 2", harness.server([step, {"content": "done"}]))
    assert (harness.project / "tags.py").read_text() == 'TAG = "<tool_call>"\nN = 2\n'
    assert results(run)[0].startswith("Wrote ")


@pytest.mark.parametrize(
    ("name", "good", "bad", "language"),
    [
        ("calc.py", CALC, "def add(a, b):\nreturn a + b\n", "Python"),
        ("data.json", '{"a": 1}\n', '{"a": 1,,}\n', "JSON"),
        ("conf.toml", 'a = 1\n[b]\nc = "x"\n', "a = = 1\n", "TOML"),
    ],
)
def test_a_write_that_breaks_syntax_is_refused(
    harness: Any, name: str, good: str, bad: str, language: str
) -> None:
    (harness.project / name).write_text(good)
    run = harness.run("change it", harness.server([write(name, bad), {"content": "done"}]))
    assert (harness.project / name).read_text() == good
    text = results(run)[0]
    assert text.startswith(f"ERROR: write refused: after this change {name} would no longer")
    assert f"parse as {language}" in text
    assert "the file was left unchanged" in text


def test_an_edit_that_breaks_indentation_is_refused_and_a_fixed_retry_lands(
    harness: Any, calc: Path
) -> None:
    bad = edit("calc.py", "    return a + b\n", '    """Add."""\n      return a + b\n')
    good = edit("calc.py", "    return a + b\n", '    """Add."""\n    return a + b\n')
    run = harness.run("document add", harness.server([bad, good, {"content": "done"}]))
    assert run.code == 0, run.describe()
    first, second = results(run)
    assert "would no longer parse as Python (line 3: unexpected indent)" in first
    assert "Check the indentation of new_string" in first
    assert second.startswith("Edited calc.py")
    assert ast.get_docstring(ast.parse(calc.read_text()).body[0]) == "Add."


def test_a_file_broken_before_may_be_mended_in_steps(harness: Any) -> None:
    (harness.project / "broken.py").write_text("def f(:\n    pass\n")
    step = edit("broken.py", "pass", "return 1")
    run = harness.run("fix broken.py", harness.server([step, {"content": "done"}]))
    assert results(run)[0].startswith("Edited broken.py")


def test_a_new_python_file_must_parse(harness: Any) -> None:
    step = write("new.py", "def f(\n")
    run = harness.run("create new.py", harness.server([step, {"content": "done"}]))
    assert not (harness.project / "new.py").exists()
    assert "would no longer parse as Python" in results(run)[0]


def test_markdown_fences_around_a_whole_file_are_stripped(harness: Any) -> None:
    step = write("hello.py", "```python\nprint('hi')\n```")
    run = harness.run("create hello.py", harness.server([step, {"content": "done"}]))
    assert run.code == 0, run.describe()
    assert (harness.project / "hello.py").read_text() == "print('hi')\n"


def test_a_fenced_markdown_file_is_written_as_given(harness: Any) -> None:
    content = "```bash\nmake\n```\n"
    run = harness.run("doc", harness.server([write("BUILD.md", content), {"content": "done"}]))
    assert run.code == 0, run.describe()
    assert (harness.project / "BUILD.md").read_text() == content


def test_a_path_prefixed_with_the_project_folder_name_maps_to_the_project(
    harness: Any, calc: Path
) -> None:
    prefixed = f"{harness.project.name}/calc.py"
    step = edit(prefixed, "return a - b", "return b - a")
    run = harness.run("swap sub", harness.server([step, {"content": "done"}]))
    assert run.code == 0, run.describe()
    assert "return b - a" in calc.read_text()
    assert not (harness.project / harness.project.name).exists()
    assert f"{prefixed} means calc.py" in results(run)[0]


def test_a_new_file_under_the_project_folder_name_lands_in_the_project(harness: Any) -> None:
    step = write(f"{harness.project.name}/notes.txt", "hi\n")
    harness.run("note", harness.server([step, {"content": "done"}]))
    assert (harness.project / "notes.txt").read_text() == "hi\n"
    assert not (harness.project / harness.project.name).exists()


def test_a_real_subfolder_of_the_same_name_is_kept(harness: Any) -> None:
    inner = harness.project / harness.project.name
    inner.mkdir()
    step = write(f"{harness.project.name}/x.txt", "x\n")
    harness.run("x", harness.server([step, {"content": "done"}]))
    assert (inner / "x.txt").read_text() == "x\n"


def test_malformed_arguments_are_summarized_not_echoed(harness: Any, calc: Path) -> None:
    runaway = '{"path": "calc.py", "content": "' + "    return a + b\\n" * 300
    server = harness.server(
        [
            {"tool_calls": [{"name": "write", "arguments": runaway}]},
            {"content": "gave up"},
        ]
    )
    run = harness.run("rewrite calc.py", server, openai=True)
    assert run.code == 0, run.describe()
    [text] = results(run)
    assert "return a + b" not in text
    assert "repeats the same text over and over" in text
    assert "keys seen: path, content" in text
    # The broken call itself is re-sent capped, not 5,000 characters of it.
    resent = json.dumps(server.chat_requests()[1]["messages"])
    assert resent.count("return a + b") < 20
    assert calc.read_text() == CALC


def test_a_reply_that_repeats_itself_is_stopped(harness: Any) -> None:
    loop = {"text": "do it again\n", "count": 5000}
    server = harness.server([{"content": "Here is the plan:\n", "content_repeat": loop}])
    run = harness.run("plan", server)
    assert run.code == 0, run.describe()
    assert "began repeating itself; rift stopped the reply" in run.stderr
    # of 60,000 characters scripted; a model of unknown size gets the wide limits (4,000)
    assert len(run.result["reply"]) < 5000
    stored = run.session()["messages"][-1]["content"]
    assert stored.count("do it again") == 1  # one copy kept, so the history says what happened
    assert "[rift: the rest of this reply repeated" in stored


def test_the_repeat_refusal_tells_the_model_to_do_something_else(harness: Any, calc: Path) -> None:
    same = {"tool_calls": [{"name": "read", "arguments": {"path": "calc.py"}}]}
    run = harness.run("look", harness.server([same, same, same, {"content": "ok"}]))
    assert "Do not make this call again" in results(run)[-1]


def test_a_stopped_turn_leaves_no_file_unparseable(harness: Any, calc: Path) -> None:
    # A post-edit hook (a formatter gone wrong) breaks the file after a good edit;
    # then the model fails 7 times in a row and the turn stops.
    harness.write_config({"hooks": {"post_edit": ["printf 'def (\\n' >> calc.py"]}})
    good = edit("calc.py", "return a - b", "return b - a")
    missing = [
        {"tool_calls": [{"name": "read", "arguments": {"path": f"nope{i}.py"}}]} for i in range(7)
    ]
    run = harness.run("fix sub", harness.server([good, *missing]))
    assert "stopping the turn: 7 tool calls in a row failed" in run.stderr
    assert calc.read_text() == CALC
    assert "calc.py no longer parsed (line 7" in run.stderr
    assert "restored it" in run.stderr


def test_a_file_created_unparseable_in_the_turn_is_removed_at_its_end(harness: Any) -> None:
    harness.write_config({"hooks": {"post_edit": ["printf '}' >> made.json"]}})
    run = harness.run("make", harness.server([write("made.json", "{}\n"), {"content": "done"}]))
    assert run.code == 0, run.describe()
    assert not (harness.project / "made.json").exists()
    assert "made.json no longer parsed" in run.stderr
    assert "removed it (the turn created it)" in run.stderr


def test_a_file_broken_before_the_turn_is_left_alone_at_its_end(harness: Any) -> None:
    (harness.project / "old.py").write_text("def f(:\n")
    harness.write_config({"hooks": {"post_edit": ["true"]}})
    step = edit("old.py", "def f(:", "def f((:")
    harness.run("touch", harness.server([step, {"content": "done"}]))
    assert (harness.project / "old.py").read_text() == "def f((:\n"


CSV_BLOCK = "".join(f"2026-12-0{d},widget,{d * 3},ok\n" for d in range(1, 8))
"""Seven lines a large model may honestly repeat (a CSV of identical days, a table)."""


def _named(name: str) -> list[dict[str, Any]]:
    return [{"name": name, "capabilities": ["tools"], "context_length": 32768}]


def test_a_large_models_repeated_block_is_not_cut(harness: Any) -> None:
    """A 7-line block repeated 6 times is an answer, not a loop, from a 32B model (issue 32)."""
    server = harness.server(
        [{"content": "Here:\n" + CSV_BLOCK * 6}], models=_named("qwen2.5-coder:32b")
    )
    run = harness.run("csv please", server, "-m", "qwen2.5-coder:32b")
    assert run.code == 0, run.describe()
    assert "repeating itself" not in run.stderr
    assert run.result["reply"].count(CSV_BLOCK) == 6


def test_a_small_models_repeated_block_is_cut_and_the_user_told(harness: Any) -> None:
    server = harness.server(
        [{"content": "Here:\n" + CSV_BLOCK * 6}], models=_named("qwen2.5-coder:1.5b")
    )
    run = harness.run("csv please", server, "-m", "qwen2.5-coder:1.5b")
    assert run.code == 0, run.describe()
    assert "began repeating itself; rift stopped the reply" in run.stderr
    assert run.session()["messages"][-1]["content"].count(CSV_BLOCK) == 1


def test_a_new_file_in_python_312_syntax_is_written_on_any_python(harness: Any) -> None:
    """Issue 44: `type X = int` is Python 3.12; rift on 3.11 must still accept it."""
    step = write("alias.py", "type Number = int | float\n\n\ndef f[T](x: T) -> T:\n    return x\n")
    run = harness.run("create alias.py", harness.server([step, {"content": "done"}]))
    assert run.code == 0, run.describe()
    assert (harness.project / "alias.py").exists(), results(run)
    assert results(run)[0].startswith("Wrote") or "alias.py" in results(run)[0]


@pytest.mark.parametrize("source", ['print "x"\n', 'exec "x = 1"\n', "if 1 <> 2:\n    pass\n"])
def test_a_new_python2_file_is_refused(harness: Any, source: str) -> None:
    """Issue 44: tree-sitter-python also parses Python 2 statements; no Python 3 does."""
    step = write("old.py", source)
    run = harness.run("create old.py", harness.server([step, {"content": "done"}]))
    assert not (harness.project / "old.py").exists()
    assert "would no longer parse as Python" in results(run)[0]

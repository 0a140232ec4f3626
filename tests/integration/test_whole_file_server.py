"""The whole-file format behind a model server (issue 29): a small model served by
llama.cpp, Ollama or LM Studio answers the whole-file request with the file in a fenced
block as plain content. Real `rift -p`, real HTTP to the scripted fake server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rift_bin import run_rift


def edit_turn(path: str, old: str, new: str) -> dict[str, Any]:
    """A scripted model turn that makes one `edit` call."""
    edit = {"path": path, "old_string": old, "new_string": new}
    return {"tool_calls": [{"name": "edit", "arguments": edit}]}


SETTINGS = '{\n  "name": "demo",\n  "debug": true\n}\n'


def test_a_small_server_model_answers_with_the_file_and_it_is_written(
    project: Path, fake_server: Any
) -> None:
    (project / "settings.json").write_text(SETTINGS)
    fenced = '```json\n{\n  "name": "demo",\n  "debug": false\n}```'  # no final newline
    server = fake_server(
        {
            "models": [{"name": "qwen2.5-coder:1.5b", "capabilities": ["tools"]}],
            "turns": [{"content": fenced}],
        }
    )
    prompt = 'In settings.json, set "debug" to false.'
    args = ["--host", server.url, "-m", "qwen2.5-coder:1.5b", "-p", prompt]
    result = run_rift(args, project)
    assert result.returncode == 0, result.stderr
    assert (project / "settings.json").read_text() == SETTINGS.replace("true", "false")
    [request] = server.chat_requests()  # one request: read before, rift's own answer after
    assert "Rewrite settings.json whole" in str(request["messages"])
    assert "Changed settings.json (+1 -1 lines)." in result.stdout


def test_a_model_of_unknown_size_is_not_asked_for_files_whole(
    project: Path, fake_server: Any
) -> None:
    (project / "settings.json").write_text(SETTINGS)
    server = fake_server({"turns": [{"content": "I would set debug to false."}]})
    args = [
        "--host",
        server.url,
        "-m",
        "fake-model",
        "-p",
        'In settings.json, set "debug" to false.',
    ]
    result = run_rift(args, project)
    assert result.returncode == 0, result.stderr
    assert "Rewrite settings.json whole" not in str(server.chat_requests()[0]["messages"])
    assert (project / "settings.json").read_text() == SETTINGS


SHAPES = (
    "def area(width, height):\n    return width * height\n\n\n"
    'def describe(width, height):\n    return f"{width}x{height}: area {area(width, height)}"\n'
)


def test_a_rename_is_spelled_out_as_one_edit_and_ends_in_one_request(
    project: Path, fake_server: Any
) -> None:
    (project / "shapes.py").write_text(SHAPES)
    rename = {"path": "shapes.py", "old_string": "area", "new_string": "rect_area",
              "replace_all": True}  # fmt: skip
    server = fake_server(
        {
            "models": [{"name": "qwen2.5-coder:1.5b", "capabilities": ["tools"]}],
            "turns": [{"tool_calls": [{"name": "edit", "arguments": rename}]}],
        }
    )
    prompt = (
        "Rename the function area in shapes.py to rect_area, and update the place that calls it."
    )
    args = ["--host", server.url, "-m", "qwen2.5-coder:1.5b", "-p", prompt]
    result = run_rift(args, project)
    assert result.returncode == 0, result.stderr
    [request] = server.chat_requests()
    sent = str(request["messages"])
    assert (
        "new_string `rect_area` and replace_all true" in sent
        and "Rewrite shapes.py whole" not in sent
    )
    assert (project / "shapes.py").read_text() == (
        SHAPES.replace("def area", "def rect_area").replace("{area(", "{rect_area(")
    )  # the word in the message's text stays
    assert "Changed shapes.py (+2 -2 lines)." in result.stdout


PEOPLE = "def is_adult(age):\n    return age > 18\n"


def test_an_unchanged_file_for_a_reported_wrong_result_gets_the_example_to_trace(
    project: Path, fake_server: Any
) -> None:
    """The 1.5B model sent people.py back unchanged, then two edits that changed nothing,
    for "is_adult(18) returns False, but 18 counts as adult" (the tiny tier's
    fix_comparison, failed by every agent). Told to work the example through the code,
    it found `>` (2 of 2 runs)."""
    (project / "people.py").write_text(PEOPLE)
    server = fake_server(
        {
            "models": [{"name": "qwen2.5-coder:1.5b", "capabilities": ["tools"]}],
            "turns": [
                {"content": f"```python\n{PEOPLE}```"},
                edit_turn("people.py", "age > 18", "age >= 18"),
                {"content": "Fixed."},
            ],
        }
    )
    prompt = "is_adult(18) in people.py returns False, but 18 counts as adult. Fix it."
    args = ["--host", server.url, "-m", "qwen2.5-coder:1.5b", "-p", prompt]
    result = run_rift(args, project)
    assert result.returncode == 0, result.stderr
    assert (project / "people.py").read_text() == PEOPLE.replace(">", ">=")
    refusal = str(server.chat_requests()[1]["messages"][-1])
    assert "so nothing would change" in refusal
    assert "The task says is_adult(18) gives the wrong result: go through is_adult" in refusal


def test_a_function_still_to_be_added_gets_no_trace_hint(project: Path, fake_server: Any) -> None:
    (project / "mathx.py").write_text("def cube(x):\n    return x ** 3\n")
    server = fake_server(
        {
            "models": [{"name": "qwen2.5-coder:1.5b", "capabilities": ["tools"]}],
            "turns": [
                edit_turn("mathx.py", "x ** 3", "x ** 3"),
                {"content": "Could not do it."},
            ],
        }
    )
    prompt = "Add a function square(x) that returns x * x to mathx.py."
    result = run_rift(["--host", server.url, "-m", "qwen2.5-coder:1.5b", "-p", prompt], project)
    assert result.returncode == 0, result.stderr
    results = [m["content"] for m in server.chat_requests()[-1]["messages"] if m["role"] == "tool"]
    assert any("are identical; nothing to change" in r for r in results), results
    assert not any("gives the wrong result" in r for r in results), results


MONEY = (
    'def apply_discount(price, percent):\n    """The price after taking `percent` percent off."""\n'
    "    return price + price * percent / 100\n\n\n"
    "def add_tax(price, rate):\n    return price * (1 + rate)\n"
)


def test_the_whole_file_request_ends_with_the_task_itself(project: Path, fake_server: Any) -> None:
    """Asked for greet.py whole "with the task's change made", the 1.5B model sent it back
    unchanged three times: the task sat two messages up, behind the file. Said again at
    the end of the request, the type hints came back in one request (tiny tier's
    add_type_hints and wrong_operator, 2026-12-03)."""
    (project / "greet.py").write_text("def greet(name):\n    return 'Hello, ' + name\n")
    fenced = "```python\ndef greet(name: str) -> str:\n    return 'Hello, ' + name\n```"
    server = fake_server(
        {
            "models": [{"name": "qwen2.5-coder:1.5b", "capabilities": ["tools"]}],
            "turns": [{"content": fenced}],
        }
    )
    prompt = "Add type hints to the function greet in greet.py: name is a str and it returns a str."
    result = run_rift(["--host", server.url, "-m", "qwen2.5-coder:1.5b", "-p", prompt], project)
    assert result.returncode == 0, result.stderr
    [request] = server.chat_requests()
    last = str(request["messages"][-1]["content"])
    assert last.startswith("[system] Rewrite greet.py whole:")
    assert last.endswith(f"with this change made in them: {prompt} No other text.")
    assert "name: str" in (project / "greet.py").read_text()


def test_a_change_beside_the_function_a_task_reports_wrong_is_not_done(
    project: Path, fake_server: Any
) -> None:
    """Told apply_discount(100, 10) returns 110.0, the 1.5B model added a docstring to
    add_tax and rift reported success. The code apply_discount runs did not change, so the
    turn is not done: the check says so once, with the example to trace."""
    (project / "money.py").write_text(MONEY)
    beside = MONEY.replace(
        "def add_tax(price, rate):\n", 'def add_tax(price, rate):\n    """Add the tax."""\n'
    )
    server = fake_server(
        {
            "models": [{"name": "qwen2.5-coder:1.5b", "capabilities": ["tools"]}],
            "turns": [
                {"content": f"```python\n{beside}```"},
                edit_turn("money.py", "price + price", "price - price"),
                {"content": "Fixed."},
            ],
        }
    )
    prompt = "apply_discount(100, 10) in money.py returns 110.0 but should return 90.0. Fix it."
    result = run_rift(["--host", server.url, "-m", "qwen2.5-coder:1.5b", "-p", prompt], project)
    assert result.returncode == 0, result.stderr
    fed_back = str(server.chat_requests()[1]["messages"][-1]["content"])
    assert "Not done yet. Your change left the code of apply_discount as it was" in fed_back
    assert "go through apply_discount line by line" in fed_back
    assert "price - price" in (project / "money.py").read_text()


def test_a_fix_in_a_helper_the_reported_function_uses_is_done(
    project: Path, fake_server: Any
) -> None:
    (project / "money.py").write_text("RATE = 2\n\n\ndef double(x):\n    return x * RATE\n")
    server = fake_server(
        {
            "models": [{"name": "qwen2.5-coder:1.5b", "capabilities": ["tools"]}],
            "turns": [
                {"content": "```python\nRATE = 3\n\n\ndef double(x):\n    return x * RATE\n```"}
            ],
        }
    )
    prompt = "double(2) in money.py returns 4 but should return 6. Fix it."
    result = run_rift(["--host", server.url, "-m", "qwen2.5-coder:1.5b", "-p", prompt], project)
    assert result.returncode == 0, result.stderr
    assert len(server.chat_requests()) == 1
    assert "RATE = 3" in (project / "money.py").read_text()


def test_a_json_key_the_task_keeps_is_not_lost(project: Path, fake_server: Any) -> None:
    """Asked to set "debug" to false, the 1.5B model edited old_string `debug` to `false`:
    the key was gone and the value still true, and rift said done. A key the task does not
    remove or rename is fed back when it disappears."""
    (project / "settings.json").write_text(SETTINGS)
    edit = {
        "name": "edit",
        "arguments": {"path": "settings.json", "old_string": "debug", "new_string": "false"},
    }
    fix = {
        "name": "edit",
        "arguments": {
            "path": "settings.json",
            "old_string": '"false": true',
            "new_string": '"debug": false',
        },
    }
    server = fake_server(
        {
            "turns": [
                {"tool_calls": [edit]},
                {"content": "Done."},
                {"tool_calls": [fix]},
                {"content": "Done."},
            ]
        }
    )
    prompt = 'In settings.json, set "debug" to false.'
    result = run_rift(["--host", server.url, "-m", "fake-model", "-p", prompt], project)
    assert result.returncode == 0, result.stderr
    fed_back = str(server.chat_requests()[2]["messages"][-1]["content"])
    assert 'Not done yet. settings.json no longer has the key "debug"' in fed_back
    assert (project / "settings.json").read_text() == SETTINGS.replace("true", "false")

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


def test_the_whole_file_request_alone_carries_an_output_cap_sized_to_the_file(
    project: Path, fake_server: Any
) -> None:
    """A small model looping inside the fence would decode until the context is full;
    the request for the file whole caps its reply (the file back with room to grow),
    and the requests after it are not capped."""
    (project / "settings.json").write_text(SETTINGS)
    server = fake_server(
        {
            "models": [{"name": "qwen2.5-coder:1.5b", "capabilities": ["tools"]}],
            "turns": [{"content": "No change is needed."}, {"content": "Done."}],
        }
    )
    prompt = "Lies settings.json und sag, ob debug an ist."
    args = ["--host", server.url, "-m", "qwen2.5-coder:1.5b", "-p", prompt]
    result = run_rift(args, project)
    assert result.returncode == 0, result.stderr
    first = server.chat_requests()[0]
    assert "Rewrite settings.json whole" in str(first["messages"])
    cap = first["options"]["num_predict"]
    assert 1024 + len(SETTINGS) // 2 == cap
    for later in server.chat_requests()[1:]:
        assert "num_predict" not in later.get("options", {})

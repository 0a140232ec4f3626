"""The whole-file format behind a model server (issue 29): a small model served by
llama.cpp, Ollama or LM Studio answers the whole-file request with the file in a fenced
block as plain content. Real `rift -p`, real HTTP to the scripted fake server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rift_bin import run_rift

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

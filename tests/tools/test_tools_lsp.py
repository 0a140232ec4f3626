"""LSP diagnostics after write/edit, with a real language server (`ruff server`).

ruff ships with the test extra, in the same environment as the interpreter
running the tests; tests that need it skip with a reason when it is missing.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from rift_bin import run_rift, write_json
from tooldoubles import RecordingGate, RecordingJournal

from rift.config.load import LspConfig, load_config
from rift.lsp.client import HEADER, LspService
from rift.tools.base import ToolContext, ToolOutput
from rift.tools.edit import TOOL as EDIT
from rift.tools.services import ToolServices
from rift.tools.write import TOOL as WRITE

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
needs_ruff = pytest.mark.skipif(RUFF is None, reason="ruff (the test extra) is not installed")


def _ctx(proj: Path, config: LspConfig, start_timeout: float = 10.0) -> ToolContext:
    (proj / "ruff.toml").write_text('[lint]\nselect = ["F"]\n')  # the project's own lint rules
    service = LspService(config, proj, start_timeout=start_timeout)
    return ToolContext(
        cwd=proj,
        gate=RecordingGate(),
        journal=RecordingJournal(),
        services=ToolServices(diagnostics=service),
    )


async def _steps(ctx: ToolContext, *calls: tuple[Any, dict[str, Any]]) -> list[ToolOutput]:
    """Run tool calls in one event loop (a session's servers live in one loop)."""
    try:
        return [await tool.run(args, ctx) for tool, args in calls]
    finally:
        service = ctx.services.diagnostics
        assert isinstance(service, LspService)
        await service.aclose()


@needs_ruff
def test_new_problems_are_appended_and_old_ones_are_not(proj: Path) -> None:
    assert RUFF is not None
    ctx = _ctx(proj, LspConfig(servers={"python": (RUFF, "server")}))
    wrote, clean_edit, bad_edit = asyncio.run(
        _steps(
            ctx,
            (WRITE, {"path": "app.py", "content": "import os\n\nx = 1\n"}),
            (EDIT, {"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"}),
            (EDIT, {"path": "app.py", "old_string": "x = 2", "new_string": "import sys\nx = y"}),
        )
    )
    assert wrote.text.startswith(
        "Wrote 17 bytes to app.py" + HEADER + "app.py:1:8 warning: [F401] `os` imported but unused"
    )
    assert len(wrote.text.split(HEADER, 1)[1].splitlines()) == 1
    assert clean_edit.text == "Edited app.py (1 replacement)"  # `os` was already reported
    report = bad_edit.text.split(HEADER, 1)[1].splitlines()
    assert bad_edit.text.startswith("Edited app.py (1 replacement)" + HEADER)
    assert any("F821" in line and "`y`" in line and line.startswith("app.py:4:") for line in report)
    assert any("F401" in line and "`sys`" in line for line in report)
    assert not any("`os`" in line for line in report)


@needs_ruff
def test_first_edit_of_an_existing_file_reports_only_what_it_introduced(proj: Path) -> None:
    assert RUFF is not None
    (proj / "old.py").write_text("import os\nimport sys\n\nvalue = 1\n")
    ctx = _ctx(proj, LspConfig(servers={"python": (RUFF, "server")}))
    (edited,) = asyncio.run(
        _steps(
            ctx, (EDIT, {"path": "old.py", "old_string": "value = 1", "new_string": "value = z"})
        )
    )
    assert edited.text.startswith("Edited old.py (1 replacement)" + HEADER)
    lines = edited.text.split(HEADER, 1)[1].splitlines()
    assert len(lines) == 1 and "F821" in lines[0] and lines[0].startswith("old.py:4:9 ")


@needs_ruff
def test_the_server_is_found_on_path(proj: Path, tmp_path: Path, monkeypatch: Any) -> None:
    assert RUFF is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ruff").symlink_to(RUFF)
    monkeypatch.setenv("PATH", str(bin_dir))  # no pyright/pylsp here: ruff serves Python
    ctx = _ctx(proj, LspConfig())
    assert isinstance(ctx.services.diagnostics, LspService)
    assert ctx.services.diagnostics.command_for("python") == ("ruff", "server")
    (wrote,) = asyncio.run(_steps(ctx, (WRITE, {"path": "m.py", "content": "import json\n"})))
    assert HEADER in wrote.text and "F401" in wrote.text
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert LspService(LspConfig(), proj).command_for("python") is None


@pytest.mark.parametrize(
    "config",
    [
        LspConfig(enabled=False, servers={"python": (RUFF or "ruff", "server")}),
        LspConfig(servers={"python": None}),  # {"python": {"disabled": true}}
        LspConfig(servers={"python": ("false",)}),  # exits at once: silent
        LspConfig(servers={"python": ("no-such-language-server-xyz",)}),
        LspConfig(servers={"python": (sys.executable, "-c", "import time; time.sleep(60)")}),
    ],
    ids=["lsp-false", "disabled", "crashes", "missing", "never-answers"],
)
def test_no_server_means_the_result_is_unchanged(proj: Path, config: LspConfig) -> None:
    ctx = _ctx(proj, config, start_timeout=2.0)
    start = time.monotonic()
    wrote, edited = asyncio.run(
        _steps(
            ctx,
            (WRITE, {"path": "a.py", "content": "import os\n"}),
            (EDIT, {"path": "a.py", "old_string": "os", "new_string": "sys"}),
        )
    )
    assert wrote.text == "Wrote 10 bytes to a.py"
    assert edited.text == "Edited a.py (1 replacement)"
    assert time.monotonic() - start < 60  # a hung server is given up on, not waited for


def test_lsp_config_is_user_only_except_off(tmp_path: Path) -> None:
    home = tmp_path / "home"
    proj = tmp_path / "proj"
    proj.mkdir()
    user = home / ".config/rift/config.json"
    write_json(user, {"lsp": {"python": {"command": ["pylsp"]}, ".zig": {"command": ["zls"]},
                              "go": {"disabled": True}}})  # fmt: skip
    write_json(proj / ".rift.json", {"lsp": {"python": {"command": ["./evil.sh"]}}})
    config = load_config({"HOME": str(home)}, proj)
    assert config.lsp == LspConfig(
        enabled=True, servers={"python": ("pylsp",), ".zig": ("zls",), "go": None}
    )
    assert any("ignoring 'lsp' server entries" in w for w in config.warnings)
    assert LspService(config.lsp, proj).language_of(proj / "x.zig") == ".zig"
    write_json(proj / ".rift.json", {"lsp": False})
    assert load_config({"HOME": str(home)}, proj).lsp.enabled is False
    write_json(user, {"lsp": False})
    write_json(proj / ".rift.json", {})
    assert load_config({"HOME": str(home)}, proj).lsp.enabled is False


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@needs_ruff
def test_end_to_end_a_scripted_edit_gets_diagnostics(
    project: Path, fake_server: Any, tmp_path: Path
) -> None:
    assert RUFF is not None
    server_bin = tmp_path / f"ruff-{uuid.uuid4().hex}"  # a unique name to find the process by
    server_bin.symlink_to(RUFF)
    write_json(
        Path(os.environ["XDG_CONFIG_HOME"]) / "rift/config.json",
        {"lsp": {"python": {"command": [str(server_bin), "server"]}}},
    )
    (project / "ruff.toml").write_text('[lint]\nselect = ["F"]\n')
    write = {"name": "write", "arguments": {"path": "tool.py", "content": "import re\n"}}
    model = fake_server({"turns": [{"tool_calls": [write]}, {"content": "written"}]})
    run = run_rift(["-p", "write it", "--host", model.url, "-m", "fake-model"], project)
    assert run.returncode == 0, run.stderr
    tool_messages = [m for m in model.chat_requests()[1]["messages"] if m["role"] == "tool"]
    result = str(tool_messages[-1]["content"])
    assert result.startswith("Wrote 10 bytes to tool.py" + HEADER + "tool.py:1:8 ")
    assert "F401" in result
    assert _processes_with(server_bin.name) == []  # the server went away with rift

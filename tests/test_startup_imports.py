"""Startup cost: the fast paths must not import HTTP, model or UI code."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("textual", "llama_cpp", "mcp", "acp", "rich")


def _modules_after(code: str) -> set[str]:
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _cli(flag: str) -> str:
    return (
        "import contextlib, io\nfrom rift.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    try:\n        main(['{flag}'])\n    except SystemExit:\n        pass"
    )


def test_version_and_help_import_no_http_model_or_ui_code() -> None:
    for flag in ("--version", "--help"):
        loaded = _modules_after(_cli(flag))
        forbidden = {m for m in loaded if m.split(".")[0] in ("httpx", "httpcore", "asyncio")}
        forbidden |= {
            m
            for m in loaded
            if m.startswith(("rift.models", "rift.core", "rift.tools", "rift.frontends"))
        }
        forbidden |= {m for m in loaded if m.split(".")[0] in HEAVY}
        assert not forbidden, f"{flag} imported {sorted(forbidden)}"


def test_serve_path_imports_no_heavy_libraries() -> None:
    loaded = _modules_after("import rift.frontends.serve, rift.frontends.printer")
    heavy = {m for m in loaded if m.split(".")[0] in HEAVY}
    assert not heavy, sorted(heavy)
    assert "rift.core.agent" in loaded  # the probe really loaded the serve path


def test_version_output() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "rift", "--version"], capture_output=True, text=True, check=True
    )
    from rift import __version__

    assert out.stdout.strip() == f"rift {__version__}"


def test_version_imports_neither_argparse_nor_pathlib() -> None:
    """`rift --version` answers before argparse (re, enum, gettext) and pathlib load."""
    for flag in ("--version", "-V"):
        loaded = _modules_after(_cli(flag))
        assert not {"argparse", "pathlib", "typing"} & loaded, flag

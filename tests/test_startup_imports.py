"""Startup cost: each fast path imports only what it uses.

`--version`/`--help` import no HTTP, model or UI code; `-p` and `--serve` (up to
`ready`) import no UI, ACP or embedded-model code, and against a plain-http server
none of the httpx stack (models/wire.py carries those requests); `--acp` up to `initialize`
imports no UI or embedded model; the TUI paints its first frame before the
agent core or HTTP load. The whole-path checks run rift's `main` for real.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path

from fakes.fake_server import FakeModelServer

HEAVY = ("textual", "llama_cpp", "cyllama", "mcp", "acp", "rich")


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
    assert "rift.core.conversation.runtime" in loaded  # the probe really loaded the serve path


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


# ------------------------------------------------ whole fast paths, end to end

RUN_AND_LIST = (
    "import json, sys\nfrom rift.cli import main\nout = sys.argv.pop(1)\n"
    "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
    "finally:\n    open(out, 'w').write(json.dumps(sorted(sys.modules)))"
)
"""Runs rift's `main` in a fresh interpreter, then lists every module it had imported."""

EMBEDDED_ONLY = ("rift.models.embedded", "rift.models.local_weights", "importlib.metadata")
"""Needed only by the embedded-model fallback, never by a run against a server."""
HTTPX_STACK = ("httpx", "httpcore", "anyio", "sniffio", "certifi")
"""Needed only for https or proxied model servers (models/httpx_transport.py)."""
FIRST_USE = (
    "hashlib",
    "tempfile",
    "random",
    "shutil",
    "bz2",
    "lzma",
    "rift.core.permissions.bash_forms",
    "rift.core.permissions.bash_words",
)
"""Loaded on first use, never for a run that neither runs bash, hashes a plugin nor sandboxes."""
FIRST_PROMPT = ("rift.core.loop.turn", "rift.core.loop.reply", "rift.core.loop.parts.wholefile",
                "rift.core.loop.parts.checks", "rift.checks.discover",
                "rift.core.context.mentions", "rift.models.attachments", "rift.models.pricing",
                "rift.core.sessions.trace")  # fmt: skip
"""The turn loop and what only a turn uses (`@` mentions, images, the cost, the trace):
loaded with the first prompt (core/loop/setup.py), not before `ready`."""
WHEN_NEEDED = ("rift.extend.mcp", "rift.tools.web_search", "rift.tools.skill",
               "rift.core.permissions.hunks", "rift.core.permissions.suggestions",
               "rift.core.sessions.replay",
               "rift.models.server_info", "rift.tools.calls")  # fmt: skip
"""Loaded only when a session needs them: an MCP server, a search URL, skills, the
first question the gate asks, a whole replay, an OpenAI-compatible server's checks,
a sub-agent's activity."""


def _modules_of_run(
    tmp_path: Path, args: list[str], stdin: str = "", *, pty: bool = False
) -> set[str]:
    out = tmp_path / "modules.json"
    argv = [sys.executable, "-c", RUN_AND_LIST, str(out), *args]
    if pty:
        _run_in_pty(argv, tmp_path)
    else:
        done = subprocess.run(
            argv, cwd=tmp_path, input=stdin, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
    return set(json.loads(out.read_text(encoding="utf-8")))


def _run_in_pty(argv: list[str], cwd: Path) -> None:
    """The TUI needs a terminal: run it on a pseudo-terminal, draining what it paints."""
    import fcntl
    import os
    import pty
    import struct
    import termios
    import threading

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    ready = cwd / "first-frame"
    env = dict(os.environ, RIFT_TUI_READY_FILE=str(ready))
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)

    def drain() -> None:
        with contextlib.suppress(OSError):
            while os.read(master, 65536):
                pass

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
        os.close(master)
    assert ready.exists(), "the TUI never painted its first frame"


def _roots(modules: set[str], names: tuple[str, ...]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in names}


def _named(modules: set[str], names: tuple[str, ...]) -> set[str]:
    """The modules that are one of `names` or inside one of them."""
    inside = tuple(n + "." for n in names)
    return {m for m in modules if m in names or m.startswith(inside)}


def test_headless_run_imports_only_its_own_path(tmp_path: Path) -> None:
    with FakeModelServer({"turns": [{"content": "done"}]}) as fake:
        loaded = _modules_of_run(tmp_path, ["-p", "hi", "--host", fake.url, "-m", "fake-model"])
    assert "rift.frontends.printer" in loaded and "rift.models.wire" in loaded  # it really ran
    assert not _roots(loaded, HEAVY + HTTPX_STACK)
    assert not _named(loaded, ("rift.frontends.tui", "rift.frontends.acp", *EMBEDDED_ONLY))
    assert not _named(loaded, FIRST_USE)


def test_serve_up_to_ready_imports_only_its_own_path(tmp_path: Path) -> None:
    with FakeModelServer({}) as fake:
        loaded = _modules_of_run(tmp_path, ["--serve", "--host", fake.url, "-m", "fake-model"])
    assert "rift.frontends.serve" in loaded and "rift.core.conversation.runtime" in loaded
    assert "rift.models.wire" in loaded  # the model probe behind `ready`'s num_ctx
    assert not _roots(loaded, HEAVY + HTTPX_STACK)
    assert not _named(
        loaded, ("rift.frontends.tui", "rift.frontends.acp", "rift.frontends.printer",
                 *EMBEDDED_ONLY, *FIRST_USE, *FIRST_PROMPT, *WHEN_NEEDED)
    )  # fmt: skip


def test_acp_up_to_initialize_loads_no_ui_or_embedded_model(tmp_path: Path) -> None:
    initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                  "params": {"protocolVersion": 1, "clientCapabilities": {}}}  # fmt: skip
    loaded = _modules_of_run(tmp_path, ["--acp"], json.dumps(initialize) + "\n")
    assert "rift.frontends.acp" in loaded
    assert not _roots(loaded, ("textual", "rich", "llama_cpp"))
    assert not _named(loaded, ("rift.frontends.tui", "rift.frontends.serve", *EMBEDDED_ONLY[:2]))


def test_tui_first_frame_comes_before_the_core_and_http(tmp_path: Path) -> None:
    with FakeModelServer({}) as fake:
        loaded = _modules_of_run(tmp_path, ["--host", fake.url], pty=True)
    assert "textual" in loaded and "rift.frontends.tui" in loaded
    assert not _roots(loaded, ("httpx", "httpcore", "llama_cpp"))
    assert not _named(
        loaded, ("rift.core.conversation.runtime", "rift.core.conversation.startup", "rift.models")
    )


def test_help_wraps_to_columns_without_shutil() -> None:
    """`--help` still wraps to $COLUMNS (argparse's own rule) though shutil is not loaded."""
    import os

    script = _cli("--help").replace("io.StringIO()", "buffer") + (
        "\nimport sys\nprint(max(len(line) for line in buffer.getvalue().splitlines()))"
        "\nprint('shutil' in sys.modules)"
    )
    script = "import io\nbuffer = io.StringIO()\n" + script
    for columns in (70, 140):
        env = dict(os.environ, COLUMNS=str(columns))
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
        )
        widest, shutil_loaded = done.stdout.split()
        assert int(widest) <= columns - 2 and int(widest) > columns - 30, (columns, widest)
        assert shutil_loaded == "False"

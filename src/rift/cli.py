"""`rift` on the command line: flags → config → one front end.

Each front end is imported inside the branch that runs it, so `rift --version` and
`rift --help` answer without importing HTTP, model or UI code. `entry` ends a `-p` or
`--serve` run with `os._exit` once its output is flushed: the session is saved by then,
and the interpreter's teardown only delays the exit.
"""

import gc
import os
import sys

from rift import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads it alike)
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from rift.config.load import Config

VERSION_FLAGS = (["--version"], ["-V"])
SUBCOMMANDS = ("swarm", "merge")
"""`rift swarm ...` and `rift merge ...` (src/rift/swarm/): a first word, never a prompt."""


def build_parser() -> "argparse.ArgumentParser":  # quoted: importing __future__ costs too
    import argparse  # not on `rift --version`'s path: argparse brings re, enum, gettext
    import functools  # loaded by re already

    parser = argparse.ArgumentParser(
        prog="rift",
        description="A coding agent for the language models you host yourself."
        ' Also: rift swarm "<task>" (race candidates in git worktrees), rift merge <name>.',
        formatter_class=lambda prog: argparse.HelpFormatter(prog, width=_help_width()),
    )
    add = parser.add_argument
    parser.epilog = (
        "rift doctor [--host URL] [-m MODEL]: check the server, say what to change."
        " rift update: how this copy was installed and the command that updates it"
    )
    switch = functools.partial(add, action="store_true")
    switch("-V", "--version", help="print the version and exit")
    add("--host", help="model server URL (env RIFT_HOST; a URL ending in /v1 is OpenAI-compatible)")
    add("-m", "--model", help="model name, or provider/model (env RIFT_MODEL)")
    add("--num-ctx", type=int, help="context window in tokens (default 32768)")
    add("--temp", type=float, help="sampling temperature (default 0.2)")
    add("--max-iterations", type=int, help="agent-loop iterations per turn (default 40)")
    add(
        "--effort",
        choices=("minimal", "low", "medium", "high", "xhigh", "max"),
        help="reasoning effort for thinking models",
    )
    add("-p", "--prompt", help="headless one-shot: run this task and exit")
    add(
        "--attach",
        action="append",
        default=[],
        metavar="PATH",
        help="with -p: attach a file (repeatable); images go to vision models (10 MB cap),"
        " text files are appended to the prompt",
    )
    add(
        "--output-format",
        choices=("text", "json"),
        default="text",
        help="headless output: streamed text, or one JSON object at the end",
    )
    switch("--serve", help="speak the JSON-lines serve protocol on stdio")
    switch("--acp", help="speak the Agent Client Protocol on stdio (Zed, JetBrains, Neovim)")
    switch("-c", "--continue", dest="continue_last", help="resume the most recent session")
    add(
        "--resume",
        metavar="NAME",
        help="resume a session by the name /save gave it, or a session file",
    )
    switch("--approve", help="force approval mode on")
    switch(
        "--trust-project",
        help="trust this project's host/provider settings in .rift.json (asked once per setting)",
    )
    add(
        "--add-dir",
        action="append",
        default=[],
        metavar="PATH",
        help="let write/edit change files in PATH too, besides the project (repeatable)",
    )
    add("--trace", metavar="FILE", help="append one JSON line per turn to FILE (env RIFT_TRACE)")
    return parser


def _help_width() -> int:
    """The width `--help` wraps to: $COLUMNS, else the terminal's, else 80, less a margin.
    Asked here because argparse's own formatters import shutil to ask, once per argument."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns) - 2
    stdout = sys.__stdout__
    try:
        return (os.get_terminal_size(stdout.fileno()).columns or 80) - 2 if stdout else 78
    except (ValueError, OSError):  # stdout closed, or not a terminal
        return 78


def main(argv: list[str] | None = None) -> int:
    """Run rift with `argv` (default: the command line); the exit status."""
    return _main(argv)[0]


def entry() -> None:
    """The console script: `main`, then a fast exit where nothing is left to tear down."""
    code, finished = _main(None)
    if finished and _flushed() and not _other_threads():
        os._exit(code)
    raise SystemExit(code)


def _flushed() -> bool:
    """Flush stdout and stderr; False when that failed (the normal exit then reports it)."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return False
    return True


def _other_threads() -> bool:
    """A live non-daemon thread: the normal exit would wait for it, so `entry` must too."""
    threading = sys.modules.get("threading")
    if threading is None:
        return False
    main_thread = threading.main_thread()
    return any(
        t is not main_thread and not t.daemon and t.is_alive() for t in threading.enumerate()
    )


def _main(argv: list[str] | None) -> tuple[int, bool]:
    """The exit status, and whether the run finished a front end that saved all it had
    (`-p`, `--serve`): only then may `entry` skip the interpreter's teardown."""
    words = sys.argv[1:] if argv is None else argv
    if words in VERSION_FLAGS:
        print(f"rift {__version__}")
        return 0, False
    if words and words[0] in SUBCOMMANDS:
        from rift.core import start_candidate  # the core brings each candidate up
        from rift.swarm import cli as swarm_cli  # the race and merge subcommands

        return swarm_cli.run(words, start_candidate), True
    if words[:1] == ["doctor"]:
        return _doctor(words[1:]), False
    if words[:1] == ["update"]:
        from rift import update  # says how to update; runs nothing

        return update.main(words[1:]), False
    if words[:1] == ["github"]:
        from pathlib import Path

        from rift.integrations import github

        return github.main(words[1:], Path.cwd()), False
    args = build_parser().parse_args(argv)
    if args.version:
        print(f"rift {__version__}")
        return 0, False
    if args.acp or (not args.serve and args.prompt is None):
        return _run(args)
    # What `-p` and `--serve` load lives until exit: collecting cycles among it is wasted
    # work. start_agent freezes it all and turns collection back on.
    gc.disable()
    try:
        return _run(args)
    finally:
        gc.enable()


def _doctor(argv: list[str]) -> int:
    """`rift doctor`: check the configured server and model; 0 when rift can use them."""
    import argparse
    import asyncio
    from pathlib import Path

    from rift.config.load import Overrides, load_config
    from rift.core import run_doctor

    parser = argparse.ArgumentParser(
        prog="rift doctor",
        description="Check the configured model server: reachable, API, model, context window,"
        " tool calls, thinking, vision, parallel slots; print what to change.",
    )
    parser.add_argument("--host", help="model server URL (env RIFT_HOST)")
    parser.add_argument("-m", "--model", help="model name (env RIFT_MODEL)")
    parser.add_argument("--num-ctx", type=int, help="context window in tokens")
    args = parser.parse_args(argv)
    overrides = Overrides(host=args.host, model=args.model, num_ctx=args.num_ctx)
    config = load_config(os.environ, Path.cwd(), overrides)
    report = asyncio.run(run_doctor(config))
    print(report.render())
    return 1 if report.failed else 0


def _run(args: "argparse.Namespace") -> tuple[int, bool]:
    """`_main` past the flags: config, then the chosen front end."""
    from rift.config.load import flag_overrides, load_config

    overrides = flag_overrides(
        args,
        approve=True if args.approve else None,
        trace_file=args.trace,
        add_dirs=tuple(args.add_dir),
    )
    if args.acp:  # each ACP session loads its own config for the editor's cwd
        from rift.frontends import acp

        return acp.run(os.environ, overrides), False
    if args.attach and args.prompt is None:
        print("rift: --attach works with -p (headless) only", file=sys.stderr)
        return 2, False
    from pathlib import Path  # past --version: pathlib imports re, fnmatch, urllib

    config = load_config(os.environ, Path.cwd(), overrides)
    from rift.logs import log_to_file  # logging is imported by the core anyway

    log_to_file(config.paths.log_file)
    resume = None
    if args.resume:
        from rift.core import resolve_resume

        try:
            resume = resolve_resume(args.resume, config.paths.sessions_dir, config.cwd)
        except LookupError as exc:
            print(f"rift: {exc}", file=sys.stderr)
            return 2, False
    if not args.serve and args.prompt is None:
        from rift.frontends import tui  # paints its first frame before loading the core

        return tui.run(config, continue_last=args.continue_last, resume=resume), False
    return _headless(args, config, resume)


def _headless(
    args: "argparse.Namespace", config: "Config", resume: "Path | None"
) -> tuple[int, bool]:
    """`--serve` or `-p`: the exit status, and True (both save all they have)."""
    from rift.core import StartOptions  # the agent core: loaded only past --version

    if args.serve:
        from rift.frontends import serve

        options = StartOptions(continue_last=args.continue_last, resume=resume)
        return serve.run(config, options), True
    from rift.frontends import printer
    from rift.models.attachments import AttachmentError, load_attachments

    try:
        attached = load_attachments(args.attach, config.cwd)
    except AttachmentError as exc:
        print(f"rift: {exc}", file=sys.stderr)
        return 2, False
    options = StartOptions(attached=False, continue_last=args.continue_last, resume=resume)
    return printer.run(config, args.prompt, args.output_format, options, attached), True

"""`rift` on the command line: flags → config → one front end.

Only argparse and the config module load before a front end is chosen, so
`rift --version` and `rift --help` answer without importing HTTP, model or UI
code. Each front end is imported inside the branch that runs it, on purpose.
"""

from __future__ import annotations

import os
import sys

from rift import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads it alike)
if TYPE_CHECKING:
    import argparse

VERSION_FLAGS = (["--version"], ["-V"])


def build_parser() -> argparse.ArgumentParser:
    import argparse  # not on `rift --version`'s path: argparse brings re, enum, gettext

    parser = argparse.ArgumentParser(
        prog="rift",
        description="A coding agent for the language models you host yourself.",
    )
    add = parser.add_argument
    add("-V", "--version", action="store_true", help="print the version and exit")
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
    add("--serve", action="store_true", help="speak the JSON-lines serve protocol on stdio")
    add(
        "--acp",
        action="store_true",
        help="speak the Agent Client Protocol on stdio (Zed, JetBrains, Neovim)",
    )
    add(
        "-c",
        "--continue",
        dest="continue_last",
        action="store_true",
        help="resume the most recent session",
    )
    add("--resume", metavar="FILE", help="resume a specific session file")
    add("--approve", action="store_true", help="force approval mode on")
    add("--trace", metavar="FILE", help="append one JSON line per turn to FILE (env RIFT_TRACE)")
    return parser


def main(argv: list[str] | None = None) -> int:
    if (sys.argv[1:] if argv is None else argv) in VERSION_FLAGS:
        print(f"rift {__version__}")
        return 0
    args = build_parser().parse_args(argv)
    if args.version:
        print(f"rift {__version__}")
        return 0
    from rift.config import Overrides, load_config  # cheap: stdlib json and dataclasses only

    overrides = Overrides(
        host=args.host,
        model=args.model,
        num_ctx=args.num_ctx,
        temperature=args.temp,
        max_iterations=args.max_iterations,
        approve=True if args.approve else None,
        effort=args.effort,
        trace_file=args.trace,
    )
    if args.acp:  # each ACP session loads its own config for the editor's cwd
        from rift.frontends import acp

        return acp.run(os.environ, overrides)
    if args.attach and args.prompt is None:
        print("rift: --attach works with -p (headless) only", file=sys.stderr)
        return 2
    from pathlib import Path  # past --version: pathlib imports re, fnmatch, urllib

    config = load_config(os.environ, Path.cwd(), overrides)
    resume = Path(args.resume).expanduser().resolve() if args.resume else None
    if not args.serve and args.prompt is None:
        from rift.frontends import tui  # paints its first frame before loading the core

        return tui.run(config, continue_last=args.continue_last, resume=resume)
    from rift.core.startup import StartOptions  # the agent core: loaded only past --version

    if args.serve:
        from rift.frontends import serve

        return serve.run(config, StartOptions(continue_last=args.continue_last, resume=resume))
    from rift.frontends import printer
    from rift.models.attachments import AttachmentError, load_attachments

    try:
        attached = load_attachments(args.attach, config.cwd)
    except AttachmentError as exc:
        print(f"rift: {exc}", file=sys.stderr)
        return 2
    options = StartOptions(attached=False, continue_last=args.continue_last, resume=resume)
    return printer.run(config, args.prompt, args.output_format, options, attached)
